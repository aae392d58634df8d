#include "hta_breakdown.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

// The rules below are HTA's (HolisticTraceAnalysis: trace_parser.py,
// trace.py, breakdown_analysis.py, communication_analysis.py), restated:
//  - rows without "dur" or "cat", and cat "Trace", are dropped;
//  - when any "ts" in a file is fractional (or missing), every event is
//    rounded: ts = ceil(ts), end = floor(ts + dur) on the JSON doubles;
//  - a GPU row is one with args.stream; CPU rows have none (stream -1);
//  - with two or more distinct ProfilerStep#N names, CPU rows starting at or
//    after the last step's start are dropped, and GPU rows are kept only if
//    their correlation matches a kept CPU row (once per match);
//  - kernel type by name: "ncclKernel" = communication, "Memcpy"/"Memset" =
//    memory, anything else = computation;
//  - intervals are merged across streams (touching ones join); span = first
//    start to last merged end; idle = span - merged time; compute = merged
//    computation time; non-compute = span - compute - idle;
//  - per stream, a kernel's gap is its start minus the previous kernel's end
//    (by start time); host wait if its launch (the correlated runtime event)
//    started after that end, else kernel wait if the gap is < 30 µs, else other.

namespace stallwatch::collector {

namespace {

constexpr std::int64_t kConsecutiveKernelDelayNs = 30'000;

enum class KernelType : std::uint8_t { kCommunication, kMemory, kComputation };

KernelType kernel_type(std::string_view name) {
  if (name.find("ncclKernel") != std::string_view::npos) return KernelType::kCommunication;
  if (name.find("Memcpy") != std::string_view::npos ||
      name.find("Memset") != std::string_view::npos) {
    return KernelType::kMemory;
  }
  return KernelType::kComputation;
}

bool is_profiler_step(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  return name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix &&
         name[kPrefix.size()] >= '0' && name[kPrefix.size()] <= '9';
}

struct Span {
  std::int64_t ts = 0;
  std::int64_t end = 0;
};

// HTA's merge_kernel_intervals: sort by start; a row opens a new group when it
// starts after every earlier end; a group spans its first start to its
// largest end (negative-length rows included, as HTA keeps them).
std::vector<Span> merge_like_hta(std::vector<Span> rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Span& a, const Span& b) { return a.ts < b.ts; });
  std::vector<Span> groups;
  std::int64_t max_end = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].ts > max_end) {
      groups.push_back(rows[i]);
    } else {
      groups.back().end = std::max(groups.back().end, rows[i].end);
    }
    max_end = std::max(max_end, rows[i].end);
  }
  return groups;
}

std::int64_t merged_time(const std::vector<Span>& groups) {
  std::int64_t total = 0;
  for (const Span& g : groups)
    total += g.end - g.ts;
  return total;
}

// Length of time where both merged sets are running, by HTA's status sweep.
std::int64_t overlap_time(const std::vector<Span>& comm, const std::vector<Span>& comp) {
  std::vector<std::pair<std::int64_t, int>> status;
  for (const Span& g : comm) {
    status.emplace_back(g.ts, 1);
    status.emplace_back(g.end, -1);
  }
  for (const Span& g : comp) {
    status.emplace_back(g.ts, 2);
    status.emplace_back(g.end, -2);
  }
  std::sort(status.begin(), status.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::int64_t total = 0;
  int running = 0;
  for (std::size_t i = 0; i < status.size();) {
    const std::int64_t t = status[i].first;
    while (i < status.size() && status[i].first == t)
      running += status[i++].second;
    if (running == 3 && i < status.size()) total += status[i].first - t;
  }
  return total;
}

}  // namespace

double round_pct(double ratio) {
  const double pct = 100.0 * ratio;
  return std::nearbyint(pct * 100.0) / 100.0;
}

HtaTraceCollector::HtaTraceCollector(std::int64_t rank, std::string file)
    : rank_(rank), file_(std::move(file)) {}

std::uint32_t HtaTraceCollector::intern(std::string_view name) {
  auto it = name_ids_.find(std::string(name));
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
  const bool gpu = event.stream != -1;
  // CPU rows matter only as launches, as ProfilerSteps, or as row 0.
  if (!gpu && event.correlation == -1 && event.index != 0 && !is_profiler_step(event.name)) {
    Row marker;
    marker.ts_us = event.ts_us;
    marker.dur_us = event.dur_us;
    marker.ts_ns = event.ts_ns;
    marker.dur_ns = event.dur_ns;
    marker.index = event.index;
    marker.name = std::numeric_limits<std::uint32_t>::max();
    rows_.push_back(marker);
    return;
  }
  Row row;
  row.ts_us = event.ts_us;
  row.dur_us = event.dur_us;
  row.ts_ns = event.ts_ns;
  row.dur_ns = event.dur_ns;
  row.stream = event.stream;
  row.correlation = event.correlation;
  row.index = event.index;
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

HtaBreakdown hta_breakdown(std::vector<HtaTraceCollector>& traces) {
  HtaBreakdown out;
  std::set<std::string> step_names;
  for (const auto& trace : traces) {
    for (const auto& row : trace.rows_) {
      if (row.name < trace.names_.size() && is_profiler_step(trace.names_[row.name])) {
        step_names.insert(trace.names_[row.name]);
      }
    }
  }
  out.profiler_steps = step_names.size();
  out.dropped_last_step = step_names.size() >= 2;
  constexpr std::uint32_t kNoName = std::numeric_limits<std::uint32_t>::max();

  for (auto& trace : traces) {
    using Row = HtaTraceCollector::Row;
    const auto& rows = trace.rows_;
    HtaRankBreakdown rank;
    rank.rank = trace.rank_;
    rank.file = trace.file_;

    // CPU launches by correlation (the last one in file order wins, as in
    // HTA's transform_correlation_to_index).
    std::unordered_map<std::int64_t, std::size_t> launch_of;
    bool any_cpu = false;
    std::int64_t last_step_start = std::numeric_limits<std::int64_t>::min();
    std::int64_t first_cpu_start = std::numeric_limits<std::int64_t>::max();
    bool any_step = false;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      if (row.stream != -1) continue;
      any_cpu = true;
      first_cpu_start = std::min(first_cpu_start, row.ts_ns);
      if (row.correlation != -1) launch_of[row.correlation] = i;
      if (row.name != kNoName && is_profiler_step(trace.names_[row.name])) {
        any_step = true;
        last_step_start = std::max(last_step_start, row.ts_ns);
      }
    }
    const bool filter = out.dropped_last_step && any_cpu;
    const std::int64_t cut = any_step ? last_step_start : first_cpu_start;
    auto cpu_kept = [&](const Row& row) { return !filter || row.ts_ns < cut; };

    // Kept CPU rows per correlation: a GPU row is kept once per match.
    std::unordered_map<std::int64_t, std::uint32_t> kept_launches;
    std::uint32_t kept_uncorrelated = 0;
    if (filter) {
      for (const Row& row : rows) {
        if (row.stream != -1 || !cpu_kept(row)) continue;
        if (row.correlation == -1) {
          ++kept_uncorrelated;
        } else {
          ++kept_launches[row.correlation];
        }
      }
    }
    struct Gpu {
      Span span;
      std::int64_t stream = 0;
      KernelType type = KernelType::kComputation;
      double runtime_ts = std::nan("");  // start of the correlated launch, if kept
    };
    auto row_ts_if_kept = [&](std::uint64_t index) -> double {
      auto it = std::lower_bound(rows.begin(), rows.end(), index,
                                 [](const Row& r, std::uint64_t v) { return r.index < v; });
      if (it == rows.end() || it->index != index) return std::nan("");
      if (it->stream == -1) return cpu_kept(*it) ? static_cast<double>(it->ts_ns) : std::nan("");
      return static_cast<double>(it->ts_ns);
    };
    std::vector<Gpu> gpu;
    for (const Row& row : rows) {
      if (row.stream == -1) continue;
      std::uint32_t copies = 1;
      if (filter) {
        if (row.stream <= 0) continue;
        if (row.correlation == -1) {
          copies = kept_uncorrelated;
        } else {
          auto it = kept_launches.find(row.correlation);
          copies = it == kept_launches.end() ? 0 : it->second;
        }
      }
      if (copies == 0) continue;
      Gpu g;
      g.span = {row.ts_ns, row.ts_ns + row.dur_ns};
      g.stream = row.stream;
      g.type = kernel_type(trace.names_[row.name]);
      std::int64_t index_correlation = std::min<std::int64_t>(row.correlation, 0);
      if (row.stream > 0 && row.correlation != -1) {
        auto it = launch_of.find(row.correlation);
        if (it != launch_of.end())
          index_correlation = static_cast<std::int64_t>(rows[it->second].index);
      }
      if (index_correlation >= 0)
        g.runtime_ts = row_ts_if_kept(static_cast<std::uint64_t>(index_correlation));
      for (std::uint32_t c = 0; c < copies; ++c)
        gpu.push_back(g);
    }
    rank.gpu_events = gpu.size();
    if (gpu.empty()) {
      out.ranks.push_back(std::move(rank));
      continue;
    }

    std::vector<Span> all, comp, comm;
    for (const Gpu& g : gpu) {
      all.push_back(g.span);
      if (g.type == KernelType::kComputation) comp.push_back(g.span);
      if (g.type == KernelType::kCommunication) comm.push_back(g.span);
    }
    const auto merged = merge_like_hta(all);
    rank.span_ns = merged.back().end - merged.front().ts;
    rank.idle_ns = rank.span_ns - merged_time(merged);
    const auto comp_merged = merge_like_hta(comp);
    rank.compute_ns = merged_time(comp_merged);
    rank.non_compute_ns = rank.span_ns - rank.compute_ns - rank.idle_ns;
    const double span = static_cast<double>(rank.span_ns);
    rank.idle_pct = round_pct(static_cast<double>(rank.idle_ns) / span);
    rank.compute_pct = round_pct(static_cast<double>(rank.compute_ns) / span);
    rank.non_compute_pct = round_pct(static_cast<double>(rank.non_compute_ns) / span);
    if (!comm.empty()) {
      const auto comm_merged = merge_like_hta(comm);
      rank.has_comm = true;
      rank.comm_comp_overlap_pct =
          round_pct(static_cast<double>(overlap_time(comm_merged, comp_merged)) /
                    static_cast<double>(merged_time(comm_merged)));
    }

    std::map<std::int64_t, std::vector<const Gpu*>> by_stream;
    for (const Gpu& g : gpu)
      by_stream[g.stream].push_back(&g);
    for (auto& [stream, kernels] : by_stream) {
      std::stable_sort(kernels.begin(), kernels.end(),
                       [](const Gpu* a, const Gpu* b) { return a->span.ts < b->span.ts; });
      HtaStreamIdle idle;
      idle.stream = stream;
      for (std::size_t i = 1; i < kernels.size(); ++i) {
        const std::int64_t prev_end = kernels[i - 1]->span.end;
        const std::int64_t gap = kernels[i]->span.ts - prev_end;
        const double launch = kernels[i]->runtime_ts;
        if (!std::isnan(launch) && launch > static_cast<double>(prev_end)) {
          idle.host_wait_ns += gap;
        } else if (gap < kConsecutiveKernelDelayNs) {
          idle.kernel_wait_ns += gap;
        } else {
          idle.other_ns += gap;
        }
      }
      rank.streams.push_back(idle);
    }
    out.ranks.push_back(std::move(rank));
  }
  std::stable_sort(
      out.ranks.begin(), out.ranks.end(),
      [](const HtaRankBreakdown& a, const HtaRankBreakdown& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace stallwatch::collector
