// SPDX-License-Identifier: MIT
#pragma once

// Who sent a batch: the wire Source table (stallwatch.fbs) as a plain struct,
// shared by the agent (which fills it once per process) and the collector
// (which decodes it). The enums' values are those of the schema's
// ProcessRole and DeviceSource.

#include <cstdint>
#include <string>

namespace stallwatch {

enum class ProcessRole : std::uint8_t { kMain = 0, kWorker = 1 };

// What the source says its device-busy events come from.
enum class DeviceSource : std::uint8_t { kNone = 0, kCupti = 1, kCudaEvents = 2, kNvml = 3 };

struct SourceInfo {
  std::string job;
  std::int32_t rank = 0;
  std::string host;
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::string agent_version;
  std::int64_t start_ns = 0;  // the process's start (agent clock)
  ProcessRole role = ProcessRole::kMain;
  DeviceSource device_source = DeviceSource::kNone;

  bool operator==(const SourceInfo&) const = default;
};

}  // namespace stallwatch
