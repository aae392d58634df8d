// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "activity_interval.h"
#include "activity_record.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {

// Records device intervals as agent events: a COMPLETE event in cat "gpu"
// (the collector's DEVICE_BUSY) on the interval's lane, named after the
// record (a kernel's demangled name, "memcpy HtoD", "memset"); a launch as a
// COMPLETE in cat "cuda_runtime" named after its call, on its thread. Each
// carries its correlation id in region_id with wire::kEventFlagCorrelation
// (none when CUPTI gave it 0).
//
// Names are interned once per distinct string and cached here (interning
// takes the agent's lock). Device records arrive in bursts of thousands, more
// than a thread's ring may hold, so after every `flush_every` events the sink
// waits (at most kFlushWaitMs) for the sender to drain: the delivering thread
// is CUPTI's or the agent's own, never one of the host's training threads.
// Used by one thread at a time (the CUPTI source serialises deliveries).
class ActivitySink {
 public:
  static constexpr int kFlushWaitMs = 200;
  static constexpr std::size_t kMaxCachedNames = 16384;

  // `flush_every` 0: never flush (tests, and callers that flush themselves).
  explicit ActivitySink(std::size_t flush_every = 0) noexcept : flush_every_(flush_every) {}

  void set_flush_every(std::size_t events) noexcept { flush_every_ = events; }
  // The sw_complete_on status.
  int emit(const ActivityRecord& record, const DeviceInterval& interval) noexcept;

 private:
  sw_name_t name_id(const ActivityRecord& record) noexcept;

  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };

  std::unordered_map<std::string, sw_name_t, NameHash, std::equal_to<>> names_;
  sw_name_t gpu_cat_ = 0;
  sw_name_t runtime_cat_ = 0;
  std::size_t flush_every_ = 0;
  std::size_t since_flush_ = 0;
};

// The name a record shows under: a mangled C++ kernel name demangled, cut to
// what an interned name may hold (1024 bytes).
std::string display_name(std::string_view raw);

}  // namespace stallwatch::agent
