// SPDX-License-Identifier: MIT
#include "job_aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/metric_fields.h"
#include "window_metrics.h"

namespace stallwatch::collector::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

JobWindow aggregate_job_window(std::span<const RankSnapshot> ranks, std::size_t window_index,
                               const VerdictThresholds& thresholds) {
  JobWindow out;
  std::vector<const WindowMetrics*> rows;
  // Each row's window on the collector's clock, so that ranks on hosts whose
  // clocks disagree still line up.
  std::int64_t start_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t end_ns = std::numeric_limits<std::int64_t>::min();
  for (const auto& r : ranks) {
    if (window_index >= r.windows.size()) continue;
    const WindowMetrics& w = r.windows[window_index];
    out.window_ns = w.window_ns;
    if (w.wall_seconds > 0) {
      rows.push_back(&w);
      start_ns = std::min(start_ns, collector_time(r, w.start_ns));
      end_ns = std::max(end_ns, collector_time(r, w.end_ns));
    }
  }
  out.mean.window_ns = out.max.window_ns = out.window_ns;
  if (rows.empty()) {
    for (const MetricField& f : metric_fields()) {
      if (!f.is_count()) out.mean.*f.value = out.max.*f.value = kNaN;
    }
    out.mean.wall_seconds = out.max.wall_seconds = 0;
  } else {
    out.mean.start_ns = out.max.start_ns = start_ns;
    out.mean.end_ns = out.max.end_ns = end_ns;
    for (const MetricField& f : metric_fields()) {
      if (!f.is_count()) continue;
      std::uint64_t sum = 0;
      std::uint64_t max = 0;
      for (const WindowMetrics* w : rows) {
        sum += w->*f.count;
        max = std::max(max, w->*f.count);
      }
      out.mean.*f.count = static_cast<std::uint64_t>(
          std::llround(static_cast<double>(sum) / static_cast<double>(rows.size())));
      out.max.*f.count = max;
    }
    for (const MetricField& f : metric_fields()) {
      if (f.is_count()) continue;  // above
      const auto field = f.value;
      double sum = 0;
      double max = kNaN;
      std::size_t n = 0;
      for (const WindowMetrics* w : rows) {
        const double v = w->*field;
        if (std::isnan(v)) continue;
        sum += v;
        max = n == 0 ? v : std::max(max, v);
        ++n;
      }
      out.mean.*field = n > 0 ? sum / static_cast<double>(n) : kNaN;
      out.max.*field = max;
    }
  }
  out.mean.verdict = judge(out.mean, thresholds);
  out.max.verdict = judge(out.max, thresholds);
  for (const WindowMetrics* w : rows) {
    out.mean.io_captured = out.max.io_captured = out.mean.io_captured || w->io_captured;
    out.mean.launches_captured = out.max.launches_captured =
        out.mean.launches_captured || w->launches_captured;
  }
  out.mean.cause = judge_cause(out.mean, thresholds);
  out.max.cause = judge_cause(out.max, thresholds);
  out.verdict = out.mean.verdict;

  int with_steps = 0;
  double slowest = -1;
  for (const auto& r : ranks) {
    if (window_index >= r.windows.size()) continue;
    const WindowMetrics& w = r.windows[window_index];
    if (w.steps == 0 || std::isnan(w.step_seconds_p50)) continue;
    ++with_steps;
    if (w.step_seconds_p50 > slowest) {
      slowest = w.step_seconds_p50;
      out.straggler_rank = r.rank;
    }
  }
  if (with_steps < 2) out.straggler_rank = -1;
  return out;
}

}  // namespace stallwatch::collector::detail
