#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/trace_event.h"

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
};

struct HtaBreakdown {
  std::size_t profiler_steps = 0;  // distinct ProfilerStep#N names over all ranks
  bool dropped_last_step = false;  // events launched in the last step were dropped
  std::vector<HtaRankBreakdown> ranks;
};

// Collects what HTA's breakdowns need from one Kineto trace: every complete
// event with a duration and a category, reduced to a few numbers each (the
// GPU rows and the CPU rows that may launch them). Memory grows with the
// number of events in the profiled window, as HTA's does. Not thread-safe.
class HtaTraceCollector {
 public:
  HtaTraceCollector(std::int64_t rank, std::string file);

  void add(const TraceEvent& event);
  // `fractional_ts`: the file had a fractional or missing "ts" somewhere; HTA
  // then rounds every start up and every end down to whole µs.
  void finish(bool fractional_ts);

 private:
  friend HtaBreakdown hta_breakdown(std::vector<HtaTraceCollector>& traces);
  struct Row {
    double ts_us = 0;
    double dur_us = 0;
    std::int64_t ts_ns = 0;  // exact, used when no rounding applies
    std::int64_t dur_ns = 0;
    std::int64_t stream = -1;
    std::int64_t correlation = -1;
    std::uint64_t index = 0;
    std::uint32_t name = 0;  // into names_
  };
  std::uint32_t intern(std::string_view name);

  std::int64_t rank_;
  std::string file_;
  std::vector<Row> rows_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
};

// HTA's get_temporal_breakdown, get_comm_comp_overlap and
// get_idle_time_breakdown (consecutive kernel delay 30 µs) over the given
// ranks, following HTA's rules exactly (see hta_breakdown.cc).
HtaBreakdown hta_breakdown(std::vector<HtaTraceCollector>& traces);

// pandas' round(x, 2): x * 100, rounded half to even, / 100.
double round_pct(double ratio);

}  // namespace stallwatch::collector
