// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hta_trace.h"

namespace stallwatch::collector {

// Device time of one kernel type, or of several running at once ("A
// overlapping B"), summed over all ranks, in µs; percentage of the total,
// rounded to one decimal as pandas does.
struct HtaKernelTypeTime {
  std::string kernel_type;
  std::int64_t sum_us = 0;
  double percentage = 0;
};

// One row of HTA's per-rank kernel table: a kernel name (or "others") of one
// type, with its duration statistics in µs. For "others" and for kernels
// ranked among the top ones of a type that has more than `num_kernels`
// kernels, the statistics are over per-kernel sums, as in HTA.
struct HtaKernelStat {
  std::string name;
  double sum_us = 0;
  double max_us = 0;
  double min_us = 0;
  double stddev = 0;
  double mean_us = 0;
  std::string kernel_type;
  std::int64_t rank = 0;
};

// HTA's get_gpu_kernel_breakdown(include_memory_kernels=True,
// duration_ratio=0.8, num_kernels=10): `types` sorted by time, descending;
// `kernels` sorted by kernel type, name and rank.
struct HtaKernelBreakdown {
  std::vector<HtaKernelTypeTime> types;
  std::vector<HtaKernelStat> kernels;
};

struct HtaKernelBreakdownOptions {
  bool include_memory_kernels = true;
  double duration_ratio = 0.8;
  std::size_t num_kernels = 10;
};

HtaKernelBreakdown hta_kernel_breakdown(const HtaTrace& trace,
                                        const HtaKernelBreakdownOptions& options = {});

}  // namespace stallwatch::collector
