// SPDX-License-Identifier: MIT
#include "hta_breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "hta_merge.h"

// HTA's breakdown rules (breakdown_analysis.py, communication_analysis.py),
// restated, on the rows HtaTrace keeps:
//  - intervals are merged across streams (touching ones join); span = first
//    start to last merged end; idle = span - merged time; compute = merged
//    computation time; non-compute = span - compute - idle;
//  - per stream, a kernel's gap is its start minus the previous kernel's end
//    (by start time); host wait if its launch (the correlated runtime event)
//    started after that end, else kernel wait if the gap is < 30 µs, else other.

namespace stallwatch::collector {

namespace {

constexpr std::int64_t kConsecutiveKernelDelayNs = 30'000;

// Length of time where both merged sets are running, by HTA's status sweep.
std::int64_t overlap_time(const std::vector<HtaSpan>& comm, const std::vector<HtaSpan>& comp) {
  std::vector<std::pair<std::int64_t, int>> status;
  for (const HtaSpan& g : comm) {
    status.emplace_back(g.ts, 1);
    status.emplace_back(g.end, -1);
  }
  for (const HtaSpan& g : comp) {
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

namespace {

// get_temporal_breakdown, get_comm_comp_overlap and get_idle_time_breakdown.
HtaBreakdown temporal_and_idle(const HtaTrace& trace) {
  HtaBreakdown out;
  out.profiler_steps = trace.profiler_steps;
  out.dropped_last_step = trace.dropped_last_step;
  for (const HtaRankTrace& rows : trace.ranks) {
    HtaRankBreakdown rank;
    rank.rank = rows.rank;
    rank.file = rows.file;
    rank.min_external_id = rows.min_external_id;
    rank.max_external_id = rows.max_external_id;
    rank.host_pid = rows.host_pid;
    const std::vector<HtaGpuRow>& gpu = rows.gpu;
    rank.gpu_events = gpu.size();
    if (gpu.empty()) {
      out.ranks.push_back(std::move(rank));
      continue;
    }

    std::vector<HtaSpan> all, comp, comm;
    for (const HtaGpuRow& g : gpu) {
      all.push_back({g.ts, g.end});
      if (g.type == HtaKernelType::kComputation) comp.push_back({g.ts, g.end});
      if (g.type == HtaKernelType::kCommunication) comm.push_back({g.ts, g.end});
    }
    const auto merged = hta_merge(all);
    rank.span_ns = merged.back().end - merged.front().ts;
    rank.idle_ns = rank.span_ns - hta_merged_time(merged);
    const auto comp_merged = hta_merge(comp);
    rank.compute_ns = hta_merged_time(comp_merged);
    rank.non_compute_ns = rank.span_ns - rank.compute_ns - rank.idle_ns;
    const double span = static_cast<double>(rank.span_ns);
    rank.idle_pct = round_pct(static_cast<double>(rank.idle_ns) / span);
    rank.compute_pct = round_pct(static_cast<double>(rank.compute_ns) / span);
    rank.non_compute_pct = round_pct(static_cast<double>(rank.non_compute_ns) / span);
    if (!comm.empty()) {
      const auto comm_merged = hta_merge(comm);
      rank.has_comm = true;
      rank.comm_comp_overlap_pct =
          round_pct(static_cast<double>(overlap_time(comm_merged, comp_merged)) /
                    static_cast<double>(hta_merged_time(comm_merged)));
    }

    std::map<std::int64_t, std::vector<const HtaGpuRow*>> by_stream;
    for (const HtaGpuRow& g : gpu)
      by_stream[g.stream].push_back(&g);
    for (auto& [stream, kernels] : by_stream) {
      std::stable_sort(kernels.begin(), kernels.end(),
                       [](const HtaGpuRow* a, const HtaGpuRow* b) { return a->ts < b->ts; });
      HtaStreamIdle idle;
      idle.stream = stream;
      for (std::size_t i = 1; i < kernels.size(); ++i) {
        const std::int64_t prev_end = kernels[i - 1]->end;
        const std::int64_t gap = kernels[i]->ts - prev_end;
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
  return out;
}

}  // namespace

HtaBreakdown hta_breakdown(std::vector<HtaTraceCollector>& traces) {
  const HtaTrace trace = HtaTrace::filter(traces);
  HtaBreakdown out = temporal_and_idle(trace);
  out.kernels = hta_kernel_breakdown(trace);
  out.launch_stats = hta_launch_stats(trace);
  out.queue_lengths = hta_queue_lengths(trace);
  out.operators = hta_operator_attribution(trace);
  out.steps = hta_rank_steps(trace);
  return out;
}

}  // namespace stallwatch::collector
