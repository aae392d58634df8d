// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hta_kernel_breakdown.h"
#include "hta_launch_stats.h"
#include "hta_operator_overheads.h"
#include "hta_queue_length.h"
#include "hta_steps.h"
#include "hta_trace.h"

namespace stallwatch::collector {

// HTA's idle-time breakdown of one CUDA stream: gaps before each kernel,
// classified as host wait (its launch started after the previous kernel
// ended), kernel wait (gap < 30 µs), or other. In ns.
struct HtaStreamIdle {
  std::int64_t stream = 0;
  std::int64_t host_wait_ns = 0;
  std::int64_t kernel_wait_ns = 0;
  std::int64_t other_ns = 0;
};

// HTA's temporal breakdown and comm-comp overlap for one rank. Percentages
// are rounded to two decimals the way pandas does (round half to even).
struct HtaRankBreakdown {
  std::int64_t rank = 0;
  std::string file;
  std::uint64_t gpu_events = 0;  // device rows after HTA's filtering
  std::int64_t span_ns = 0;      // first GPU start to last GPU end
  std::int64_t idle_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t non_compute_ns = 0;
  double idle_pct = 0;
  double compute_pct = 0;
  double non_compute_pct = 0;
  bool has_comm = false;
  double comm_comp_overlap_pct = 0;    // |COMM ∩ COMP| / |COMM|
  std::vector<HtaStreamIdle> streams;  // sorted by stream
  std::int64_t min_external_id = -1;   // Kineto "External id" range; -1: none
  std::int64_t max_external_id = -1;
  std::int64_t host_pid = -1;  // the process of its host operators; -1: none
};

struct HtaBreakdown {
  std::size_t profiler_steps = 0;  // distinct ProfilerStep#N names over all ranks
  bool dropped_last_step = false;  // events launched in the last step were dropped
  std::vector<HtaRankBreakdown> ranks;
  HtaKernelBreakdown kernels;
  std::vector<HtaLaunchStats> launch_stats;   // one per rank
  std::vector<HtaQueueLength> queue_lengths;  // one per rank and stream
  HtaOperatorAttribution operators;
  std::vector<HtaRankSteps> steps;  // one per rank
};

// HTA's get_temporal_breakdown, get_comm_comp_overlap,
// get_idle_time_breakdown (consecutive kernel delay 30 µs),
// get_gpu_kernel_breakdown, get_cuda_kernel_launch_stats and
// get_queue_length_summary over the given ranks, following HTA's rules
// exactly (see hta_trace.cc, hta_breakdown.cc and each table's file). The
// collectors' rows are consumed.
HtaBreakdown hta_breakdown(std::vector<HtaTraceCollector>& traces);

// pandas' round(x, 2): x * 100, rounded half to even, / 100.
double round_pct(double ratio);

}  // namespace stallwatch::collector
