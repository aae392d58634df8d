// SPDX-License-Identifier: MIT
#include <algorithm>
#include <limits>

#include "engine/series_metrics.h"
#include "engine/time_math.h"
#include "rank_tracker.h"
#include "window_metrics.h"

namespace stallwatch::collector::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void sub(Sums& a, const Sums& b) {
  for (int q = 0; q < kQuantityCount; ++q)
    a.ns[q] -= b.ns[q];
  a.steps -= b.steps;
  a.durations -= b.durations;
  a.duration_sum_ns -= b.duration_sum_ns;
  a.samples -= b.samples;
  a.io.sub(b.io);
  a.launch.sub(b.launch);
}

}  // namespace

const std::string& RankTracker::host() const {
  static const std::string kNone;
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].info.role == ProcessRole::kMain) return sources_[i].info.host;
  }
  return sources_.size() > 0 ? sources_[0].info.host : kNone;
}

std::int64_t RankTracker::window_end_ns() const {
  return sources_.finished() ? ceil_grid(sources_.end_ns(), res_)
                             : floor_grid(sources_.watermark_ns(), res_);
}

RankSnapshot RankTracker::snapshot(std::int64_t now_ns, std::size_t verdict_index,
                                   const NameTable& names) {
  const std::int64_t t = window_end_ns();
  windows_.slide_to(cell_of(t));
  timeline_.expire(sources_.watermark_ns());
  const PendingCells pending = pending_cells(t);

  RankSnapshot r;
  r.job = job_;
  r.rank = rank_;
  r.state = state(now_ns);
  sources_.describe(r);
  r.epoch = progress_.epoch();
  r.step = progress_.step();
  const auto& windows = windows_.windows();
  r.windows.reserve(windows.size());
  for (const auto& w : windows)
    r.windows.push_back(window_metrics(w, t, pending));
  r.verdict = r.windows[std::min(verdict_index, r.windows.size() - 1)].verdict;
  r.cause = r.windows[std::min(verdict_index, r.windows.size() - 1)].cause;
  r.finalized = finalized_.describe(
      windows_.totals().sums(), sources_.start_ns(), windows_.horizon_ns(),
      sources_.finished() ? sources_.end_ns() : kNoTime, windows_.step_buckets());
  if (!gpu_.empty()) {
    std::vector<std::int64_t> cells;
    cells.reserve(windows.size());
    for (const auto& w : windows)
      cells.push_back(w.is_totals() ? 0 : w.window_cells());
    r.gpu_counters = gpu_.snapshot(cells, t);
  }
  r.top_files = top_files(t, names);
  r.top_kernels = top_kernels(t, names);
  return r;
}

WindowMetrics RankTracker::window_metrics(const WindowAccumulator& acc, std::int64_t t_ns,
                                          const PendingCells& pending) const {
  const bool totals = acc.is_totals();
  const std::int64_t lo_cell =
      totals ? std::numeric_limits<std::int64_t>::min() : cell_of(t_ns) - acc.window_cells();
  const std::int64_t lo_ns = totals ? sources_.start_ns() : t_ns - acc.window_cells() * res_;
  WindowFacts f;
  f.window_ns = totals ? 0 : acc.window_cells() * res_;
  f.sums = acc.sums();
  for (std::size_t i = 0; i < pending.cells.size(); ++i) {
    if (pending.first_cell + static_cast<std::int64_t>(i) >= lo_cell) f.sums.add(pending.cells[i]);
  }
  std::vector<std::int64_t> recent;  // sorted, as pending.durations is
  recent.reserve(pending.durations.size());
  for (const auto& d : pending.durations) {
    if (totals || d.ts_ns >= lo_ns) recent.push_back(d.duration_ns);
  }
  f.step_p50_s = percentile_seconds(acc.durations(), recent, 0.50);
  f.step_p95_s = percentile_seconds(acc.durations(), recent, 0.95);
  f.start_ns = std::max(lo_ns, sources_.start_ns());
  f.end_ns = sources_.finished() ? std::min(t_ns, sources_.end_ns()) : t_ns;
  f.real_device = sources_.device() != DeviceSignal::kComputeProxy;
  f.has_batch_size = progress_.has_batch_size();
  f.io_captured = io_captured(pending);
  f.launches_captured = launches_.captured();
  return make_metrics(f, config_.verdict);
}

bool RankTracker::io_captured(const PendingCells& pending) const {
  std::int64_t io = windows_.totals().sums().ns[kIo];
  for (const auto& c : pending.cells)
    io += c.ns[kIo];
  return io > 0;
}

void RankTracker::series(std::size_t metric, std::int64_t window_ns,
                         const std::vector<std::int64_t>& t_ns, std::vector<double>& out) const {
  if (t_ns.empty()) return;
  const std::int64_t t_end = window_end_ns();
  const std::int64_t kt = cell_of(t_end);
  const PendingCells pending = pending_cells(t_end);
  const std::int64_t w = window_ns / res_;
  const FinalizedHistory& history = windows_.history();
  const std::int64_t start_ns = sources_.start_ns();
  const std::int64_t start_cell = cell_of(start_ns);
  const std::int64_t known_from = history.first_cell();  // [start_cell, known_from) is gone
  const std::int64_t lo = std::min(cell_of(t_ns.front()) - w, kt);
  const auto n = static_cast<std::size_t>(kt - lo);

  std::vector<Sums> prefix(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = lo + static_cast<std::int64_t>(i);
    prefix[i + 1] = prefix[i];
    if (k >= pending.first_cell) {
      const auto j = static_cast<std::size_t>(k - pending.first_cell);
      if (j < pending.cells.size()) prefix[i + 1].add(pending.cells[j]);
    } else if (const CellData* c = history.cell(k)) {
      prefix[i + 1].add(*c);
    }
  }
  Sums total = windows_.totals().sums();
  for (const auto& c : pending.cells)
    total.add(c);

  const auto range = [&](std::int64_t a, std::int64_t b) {
    Sums s = prefix[static_cast<std::size_t>(b - lo)];
    sub(s, prefix[static_cast<std::size_t>(a - lo)]);
    return s;
  };
  const auto unknown = [&](std::int64_t a, std::int64_t b) {
    return a < known_from && b > start_cell && start_cell < known_from;
  };
  for (const std::int64_t t : t_ns) {
    const std::int64_t ct = cell_of(t);
    if (t > t_end || ct - w < lo) {
      out.push_back(kNaN);
      continue;
    }
    WindowFacts f;
    f.window_ns = window_ns;
    f.end_ns = sources_.finished() ? std::min(t, sources_.end_ns()) : t;
    if (w > 0) {
      if (unknown(ct - w, ct)) {
        out.push_back(kNaN);
        continue;
      }
      f.sums = range(ct - w, ct);
      f.start_ns = std::max(t - window_ns, start_ns);
    } else {
      if (unknown(ct, kt)) {
        out.push_back(kNaN);
        continue;
      }
      f.sums = total;
      sub(f.sums, range(ct, kt));
      f.start_ns = start_ns;
    }
    if (f.end_ns <= f.start_ns) {
      out.push_back(kNaN);
      continue;
    }
    const double mean_step = f.sums.durations > 0 ? static_cast<double>(f.sums.duration_sum_ns) /
                                                        static_cast<double>(f.sums.durations) / 1e9
                                                  : kNaN;
    f.step_p50_s = f.step_p95_s = mean_step;
    f.real_device = sources_.device() != DeviceSignal::kComputeProxy;
    f.has_batch_size = progress_.has_batch_size();
    f.io_captured = total.ns[kIo] > 0;
    f.launches_captured = launches_.captured();
    out.push_back(series_metric_value(make_metrics(f, config_.verdict), metric));
  }
}

}  // namespace stallwatch::collector::detail
