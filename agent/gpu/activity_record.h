// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace stallwatch::agent {

// kLaunch: a runtime API call that launched device work, on a host thread.
enum class ActivityKind : std::uint8_t { kKernel, kMemcpy, kMemset, kLaunch };

// One piece of device work, or the runtime call that launched it, as an
// activity source reports it, before its
// timestamps are mapped onto the agent's clock: the neutral form CUPTI
// records are parsed into (cupti_record_parser.h) and that tests build
// directly. A plain value. `name` views memory owned by the source (CUPTI's
// kernel name, or a static string) and is valid while the record's buffer is.
struct ActivityRecord {
  ActivityKind kind = ActivityKind::kKernel;
  std::uint32_t device = 0;  // device work only
  std::uint32_t stream = 0;
  std::uint32_t thread = 0;  // kLaunch only: CUPTI's id of the calling thread
  std::uint64_t start = 0;   // nanoseconds on the source's clock
  std::uint64_t end = 0;
  std::string_view name;
  // CUPTI's id of the API call: a launch and the work it launched share it.
  std::uint32_t correlation = 0;
};

}  // namespace stallwatch::agent
