// SPDX-License-Identifier: MIT
#pragma once

#include <boost/container/deque.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hta_kernel_type.h"
#include "traces/trace_event.h"

namespace stallwatch::collector {

// Collects what HTA's analyses need from one Kineto trace: every complete
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
  friend struct HtaTrace;
  // 64 bytes: a CPU row's thread and a GPU row's stream share a field, and
  // rows are found by their position (no element index kept).
  struct Row {
    double ts_us = 0;
    double dur_us = 0;
    std::int64_t ts_ns = 0;  // exact, used when no rounding applies
    std::int64_t dur_ns = 0;
    std::int64_t lane = 0;  // a GPU row's args.stream, a CPU row's tid
    std::int64_t correlation = -1;
    std::int64_t external_id = -1;
    std::uint32_t name = 0;  // into names_
    bool gpu = false;        // has args.stream (other than -1)
    bool op = false;         // a host operator (cat "cpu_op")
  };
  static_assert(sizeof(Row) <= 64);
  std::uint32_t intern(std::string_view name);

  std::int64_t rank_;
  std::string file_;
  // A deque, not a vector: no reallocation that holds the rows twice (the
  // peak memory of `stallwatch analyze`). Boost's, for its block size: one
  // allocation per 1024 rows, where std::deque's 512-byte blocks cost one
  // every six rows.
  using Rows = boost::container::deque<
      Row, void, boost::container::deque_options_t<boost::container::block_size<1024u>>>;
  Rows rows_;
  std::vector<std::string> names_;
  // Looked up by string_view (is_transparent): no string made per event.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> name_ids_;
  std::int64_t min_external_id_ = -1;  // over every event; -1: none
  std::int64_t max_external_id_ = -1;
  std::int64_t host_pid_ = -1;           // pid of the first host operator; -1: none
  bool first_row_is_element_0_ = false;  // rows_[0] is traceEvents[0]
};

// A device row HTA keeps, in ns.
struct HtaGpuRow {
  std::int64_t ts = 0;
  std::int64_t end = 0;
  std::int64_t stream = 0;
  std::int64_t correlation = -1;
  std::uint32_t name = 0;
  HtaKernelType type = HtaKernelType::kComputation;
  double runtime_ts = std::numeric_limits<double>::quiet_NaN();  // correlated launch start, if kept
};

// A host row HTA keeps that carries a correlation id (runtime calls), in ns.
struct HtaRuntimeRow {
  std::int64_t ts = 0;
  std::int64_t dur = 0;
  std::int64_t tid = 0;
  std::int64_t correlation = -1;
  std::uint32_t name = 0;
  bool has_kernel = false;  // a device row of the unfiltered trace shares its correlation
  bool launch = false;      // its name is a launch (is_hta_launch_name), decided once per name
};

// A host operator (cat "cpu_op") HTA keeps, in ns.
struct HtaOperatorRow {
  std::int64_t ts = 0;
  std::int64_t dur = 0;
  std::int64_t tid = 0;
  std::int64_t external_id = -1;  // args["External id"], the record-function id
  std::uint32_t name = 0;
};

// A ProfilerStep#N row of the host, in ns, whether or not HTA's filtering
// kept it.
struct HtaStepRow {
  std::int64_t ts = 0;
  std::int64_t dur = 0;
};

// One rank's trace as HTA's analyses see it after HTA's filtering (see
// hta_trace.cc): device rows in HTA's row order (a row kept once per kept
// launch that matches it), the kept correlated host rows and the kept host
// operators, both in file order.
struct HtaRankTrace {
  std::int64_t rank = 0;
  std::string file;
  std::vector<std::string> names;
  std::vector<HtaGpuRow> gpu;
  std::vector<HtaRuntimeRow> runtime;
  std::vector<HtaOperatorRow> operators;
  std::vector<HtaStepRow> steps;      // in file order
  std::int64_t min_external_id = -1;  // over every event of the file; -1: none
  std::int64_t max_external_id = -1;
  std::int64_t host_pid = -1;  // the process of its host operators; -1: none
};

// Every rank, filtered the way HTA's Trace does on load. Built once from the
// collectors (their rows are moved out); the analyses only read it.
struct HtaTrace {
  std::size_t profiler_steps = 0;   // distinct ProfilerStep#N names over all ranks
  bool dropped_last_step = false;   // events launched in the last step were dropped
  std::vector<HtaRankTrace> ranks;  // sorted by rank

  static HtaTrace filter(std::vector<HtaTraceCollector>& traces);
};

}  // namespace stallwatch::collector
