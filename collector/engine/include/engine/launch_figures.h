// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace stallwatch::collector {

// One kernel launch as HTA's CUDA kernel launch statistics count it: a
// runtime call that launched device work, joined to that work by their
// correlation id. Both the live launch figures (docs/api.md, "Kernel
// launches") and `stallwatch analyze`'s offline ones are made of these, so
// the two count alike. HTA's cutoffs (its defaults) apply to whole
// microseconds, each duration truncated as HTA does. A plain value.
struct LaunchFigures {
  static constexpr std::int64_t kRuntimeCutoffUs = 50;
  static constexpr std::int64_t kLaunchDelayCutoffUs = 100;

  std::int64_t call_ns = 0;   // the launch call's duration
  std::int64_t work_ns = 0;   // the device work's duration
  std::int64_t delay_ns = 0;  // from the call's end to the work's start; 0 when it started first

  std::int64_t call_us() const { return call_ns / 1000; }
  std::int64_t work_us() const { return work_ns / 1000; }
  std::int64_t delay_us() const { return delay_ns / 1000; }
  // A kernel shorter than the short call that launched it.
  bool short_kernel() const { return call_us() <= kRuntimeCutoffUs && work_us() < call_us(); }
  // A call longer than the runtime cutoff.
  bool long_launch() const { return call_us() > kRuntimeCutoffUs; }
  // Work that started more than the delay cutoff after its call returned.
  bool late_start() const { return delay_us() > kLaunchDelayCutoffUs; }
};

// The figures of a call [call_start, call_start + call_dur) that launched
// work [work_start, work_end), in ns.
constexpr LaunchFigures launch_figures(std::int64_t call_start, std::int64_t call_dur,
                                       std::int64_t work_start, std::int64_t work_end) {
  return LaunchFigures{call_dur, work_end - work_start,
                       std::max<std::int64_t>(0, work_start - call_start - call_dur)};
}

// Whether HTA counts a host event of this name as a kernel or memory launch:
// CUDA runtime and driver launches, memcpy/memset, and their ROCm and MTIA
// counterparts (HTA's TraceSymbolTable.get_runtime_launch_events_mask).
bool is_launch_call_name(std::string_view name);

}  // namespace stallwatch::collector
