// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

#include "engine/launch_figures.h"
#include "hta_trace.h"
#include "pandas_describe.h"

namespace stallwatch::collector {

// One launch joined to its kernel by correlation id, in µs: the runtime
// call's duration, the kernel's duration, and HTA's launch delay, from the
// end of the call to the kernel's start, 0 when the kernel started first.
struct HtaLaunch {
  std::int64_t correlation = 0;
  std::int64_t cpu_duration_us = 0;
  std::int64_t gpu_duration_us = 0;
  std::int64_t launch_delay_us = 0;
};

// HTA's get_cuda_kernel_launch_stats for one rank (default cutoffs: runtime
// 50 µs, launch delay 100 µs; memory launches included), with the
// describe() summary of each column and the counts HTA's charts show
// (each launch's figures are LaunchFigures, as the live ones):
// short kernels (call ≤ runtime cutoff and kernel shorter than the call),
// long launches (call > runtime cutoff) and late starts (delay > cutoff).
struct HtaLaunchStats {
  static constexpr std::int64_t kRuntimeCutoffUs = LaunchFigures::kRuntimeCutoffUs;
  static constexpr std::int64_t kLaunchDelayCutoffUs = LaunchFigures::kLaunchDelayCutoffUs;

  std::int64_t rank = 0;
  std::vector<HtaLaunch> launches;  // HTA's row order
  Describe cpu_duration;
  Describe gpu_duration;
  Describe launch_delay;
  std::uint64_t short_kernels = 0;
  std::uint64_t long_launches = 0;
  std::uint64_t late_starts = 0;
};

// The launch statistics of every rank of `trace`.
std::vector<HtaLaunchStats> hta_launch_stats(const HtaTrace& trace);

}  // namespace stallwatch::collector
