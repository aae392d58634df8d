// SPDX-License-Identifier: MIT
#include "hta_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory_resource>
#include <set>

// HTA's loading rules (HolisticTraceAnalysis: trace_parser.py, trace.py),
// restated:
//  - rows without "dur" or "cat", and cat "Trace", are dropped;
//  - when any "ts" in a file is fractional (or missing), every event is
//    rounded: ts = ceil(ts), end = floor(ts + dur) on the JSON doubles;
//  - a GPU row is one with args.stream; CPU rows have none (stream -1);
//  - with two or more distinct ProfilerStep#N names, CPU rows starting at or
//    after the last step's start are dropped, and GPU rows (stream > 0) are
//    kept only if their correlation matches a kept CPU row, once per match;
//  - a GPU row's launch is the last CPU row in file order with its
//    correlation (transform_correlation_to_index).

namespace stallwatch::collector {

namespace {

constexpr std::uint32_t kNoName = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kNoLaunch = std::numeric_limits<std::size_t>::max();

bool is_profiler_step(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  return name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix &&
         name[kPrefix.size()] >= '0' && name[kPrefix.size()] <= '9';
}

}  // namespace

HtaTraceCollector::HtaTraceCollector(std::int64_t rank, std::string file)
    : rank_(rank), file_(std::move(file)) {}

std::uint32_t HtaTraceCollector::intern(std::string_view name) {
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  name_ids_.emplace(names_.back(), id);
  return id;
}

void HtaTraceCollector::add(const TraceEvent& event) {
  if (event.kind != TraceEventKind::kComplete || std::isnan(event.dur_us) ||
      std::isnan(event.ts_us)) {
    return;
  }
  if (event.cat.data() == nullptr || event.cat == "Trace") return;
  if (event.external_id >= 0) {
    min_external_id_ =
        min_external_id_ < 0 ? event.external_id : std::min(min_external_id_, event.external_id);
    max_external_id_ = std::max(max_external_id_, event.external_id);
  }
  const bool gpu = event.stream != -1;
  if (rows_.empty()) first_row_is_element_0_ = event.index == 0;
  Row row;
  row.ts_us = event.ts_us;
  row.dur_us = event.dur_us;
  row.ts_ns = event.ts_ns;
  row.dur_ns = event.dur_ns;
  row.gpu = gpu;
  row.lane = gpu ? event.stream : event.tid;
  row.op = !gpu && event.cat == "cpu_op";
  if (row.op && host_pid_ < 0) host_pid_ = event.pid;
  row.external_id = event.external_id;
  // CPU rows matter only as launches, operators, ProfilerSteps, or as row 0.
  if (!gpu && !row.op && event.correlation == -1 && event.index != 0 &&
      !is_profiler_step(event.name)) {
    row.name = kNoName;
    rows_.push_back(row);
    return;
  }
  row.correlation = event.correlation;
  row.name = intern(event.name);
  rows_.push_back(row);
}

void HtaTraceCollector::finish(bool fractional_ts) {
  if (!fractional_ts) return;
  for (Row& row : rows_) {
    const double start = std::ceil(row.ts_us);
    const double end = std::floor(row.ts_us + row.dur_us);
    row.ts_ns = static_cast<std::int64_t>(start) * 1000;
    row.dur_ns = static_cast<std::int64_t>(end) * 1000 - row.ts_ns;
  }
}

HtaTrace HtaTrace::filter(std::vector<HtaTraceCollector>& traces) {
  HtaTrace out;
  std::set<std::string> step_names;
  for (const auto& trace : traces) {
    for (const auto& row : trace.rows_) {
      if (row.name != kNoName && is_profiler_step(trace.names_[row.name])) {
        step_names.insert(trace.names_[row.name]);
      }
    }
  }
  out.profiler_steps = step_names.size();
  out.dropped_last_step = step_names.size() >= 2;

  for (auto& trace : traces) {
    using Row = HtaTraceCollector::Row;
    const auto& rows = trace.rows_;
    HtaRankTrace& rank = out.ranks.emplace_back();
    rank.rank = trace.rank_;
    rank.file = trace.file_;
    rank.min_external_id = trace.min_external_id_;
    rank.max_external_id = trace.max_external_id_;
    rank.host_pid = trace.host_pid_;

    // Per correlation id: the last CPU row in file order with it (the
    // launch), whether a GPU row has it, and how many CPU rows with it are
    // kept (a GPU row is kept once per kept one). One map: a node per
    // correlation, not three.
    struct Correlation {
      std::size_t launch = kNoLaunch;
      bool kernel = false;
      std::uint32_t kept = 0;
    };
    // Its nodes come from one arena, freed at once with it.
    std::pmr::monotonic_buffer_resource arena;
    std::pmr::unordered_map<std::int64_t, Correlation> correlations{&arena};
    bool any_cpu = false;
    std::int64_t last_step_start = std::numeric_limits<std::int64_t>::min();
    std::int64_t first_cpu_start = std::numeric_limits<std::int64_t>::max();
    bool any_step = false;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      if (row.gpu) {
        if (row.lane > 0 && row.correlation != -1) correlations[row.correlation].kernel = true;
        continue;
      }
      any_cpu = true;
      first_cpu_start = std::min(first_cpu_start, row.ts_ns);
      if (row.correlation != -1) correlations[row.correlation].launch = i;
      if (row.name != kNoName && is_profiler_step(trace.names_[row.name])) {
        rank.steps.push_back({row.ts_ns, row.dur_ns});
        any_step = true;
        last_step_start = std::max(last_step_start, row.ts_ns);
      }
    }
    const bool filter = out.dropped_last_step && any_cpu;
    const std::int64_t cut = any_step ? last_step_start : first_cpu_start;
    auto cpu_kept = [&](const Row& row) { return !filter || row.ts_ns < cut; };

    // What each name is, decided once per name: 0 unknown, else 1 + value.
    std::vector<std::uint8_t> launch_name(trace.names_.size(), 0);
    auto is_launch = [&](std::uint32_t name) {
      if (name >= launch_name.size()) return false;
      if (launch_name[name] == 0)
        launch_name[name] = is_hta_launch_name(trace.names_[name]) ? 2 : 1;
      return launch_name[name] == 2;
    };
    std::vector<std::uint8_t> kernel_type(trace.names_.size(), 0);
    auto type_of = [&](std::uint32_t name) {
      if (kernel_type[name] == 0)
        kernel_type[name] = static_cast<std::uint8_t>(
            1 + static_cast<std::uint8_t>(hta_kernel_type(trace.names_[name])));
      return static_cast<HtaKernelType>(kernel_type[name] - 1);
    };

    // Kept CPU rows: counted first, so that each table is made room for once.
    std::uint32_t kept_uncorrelated = 0;
    std::size_t operators = 0;
    std::size_t runtime = 0;
    for (const Row& row : rows) {
      if (row.gpu || !cpu_kept(row)) continue;
      operators += row.op ? 1 : 0;
      if (row.correlation == -1) {
        ++kept_uncorrelated;
      } else {
        ++correlations[row.correlation].kept;
        ++runtime;
      }
    }
    rank.operators.reserve(operators);
    rank.runtime.reserve(runtime);
    for (const Row& row : rows) {
      if (row.gpu || !cpu_kept(row)) continue;
      if (row.op)
        rank.operators.push_back({row.ts_ns, row.dur_ns, row.lane, row.external_id, row.name});
      if (row.correlation == -1) continue;
      rank.runtime.push_back({row.ts_ns, row.dur_ns, row.lane, row.correlation, row.name,
                              correlations[row.correlation].kernel, is_launch(row.name)});
    }
    // The start of the row at `position`, NaN for a CPU row filtered out.
    auto row_ts_if_kept = [&](std::size_t position) -> double {
      const Row& row = rows[position];
      if (!row.gpu) return cpu_kept(row) ? static_cast<double>(row.ts_ns) : std::nan("");
      return static_cast<double>(row.ts_ns);
    };
    auto copies_of = [&](const Row& row) -> std::uint32_t {
      if (!filter) return 1;
      if (row.lane <= 0) return 0;
      if (row.correlation == -1) return kept_uncorrelated;
      auto it = correlations.find(row.correlation);
      return it == correlations.end() ? 0 : it->second.kept;
    };
    std::size_t gpu = 0;
    for (const Row& row : rows) {
      if (row.gpu) gpu += copies_of(row);
    }
    rank.gpu.reserve(gpu);
    for (const Row& row : rows) {
      if (!row.gpu) continue;
      const std::uint32_t copies = copies_of(row);
      if (copies == 0) continue;
      HtaGpuRow g;
      g.ts = row.ts_ns;
      g.end = row.ts_ns + row.dur_ns;
      g.stream = row.lane;
      g.correlation = row.correlation;
      g.name = row.name;
      g.type = type_of(row.name);
      // HTA's index_correlation: the launch's row, else (correlation >= 0)
      // element 0 of traceEvents, else none.
      std::size_t launch = kNoLaunch;
      if (row.lane > 0 && row.correlation != -1) {
        auto it = correlations.find(row.correlation);
        if (it != correlations.end()) launch = it->second.launch;
      }
      if (launch != kNoLaunch) {
        g.runtime_ts = row_ts_if_kept(launch);
      } else if (row.correlation >= 0 && trace.first_row_is_element_0_) {
        g.runtime_ts = row_ts_if_kept(0);
      }
      for (std::uint32_t c = 0; c < copies; ++c)
        rank.gpu.push_back(g);
    }
    rank.names = std::move(trace.names_);
    trace.rows_.clear();
    trace.rows_.shrink_to_fit();
  }
  std::stable_sort(out.ranks.begin(), out.ranks.end(),
                   [](const HtaRankTrace& a, const HtaRankTrace& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace stallwatch::collector
