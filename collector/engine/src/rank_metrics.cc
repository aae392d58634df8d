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
}

}  // namespace

RankState RankTracker::state(std::int64_t now_ns) const {
  if (finished_) return RankState::kFinished;
  if (now_ns - last_seen_ns_ >= config_.silent_after_ns) return RankState::kSilent;
  return RankState::kActive;
}

std::int64_t RankTracker::window_end_ns() const {
  return finished_ ? ceil_grid(end_ns_, res_) : floor_grid(watermark_ns_, res_);
}

RankSnapshot RankTracker::snapshot(std::int64_t now_ns, std::size_t verdict_index) {
  const std::int64_t t = window_end_ns();
  const std::int64_t kt = cell_of(t);
  for (auto& w : windows_) {
    if (!w.is_totals()) w.move_to(kt - w.window_cells(), history_);
  }
  timeline_.expire(watermark_ns_);
  const PendingCells pending = pending_cells(t);

  RankSnapshot r;
  r.job = job_;
  r.rank = rank_;
  r.state = state(now_ns);
  r.device_source = device_;
  r.start_ns = start_ns_;
  r.end_ns = finished_ ? end_ns_ : watermark_ns_;
  r.last_seen_ns = last_seen_ns_;
  r.watermark_ns = watermark_ns_;
  r.epoch = epoch_;
  r.step = step_;
  r.windows.reserve(windows_.size());
  for (const auto& w : windows_)
    r.windows.push_back(window_metrics(w, t, pending));
  r.verdict = r.windows[std::min(verdict_index, r.windows.size() - 1)].verdict;
  if (!gpu_.empty()) {
    std::vector<std::int64_t> cells;
    cells.reserve(windows_.size());
    for (const auto& w : windows_)
      cells.push_back(w.is_totals() ? 0 : w.window_cells());
    r.gpu_counters = gpu_.snapshot(cells, t);
  }
  r.processes.reserve(sources_.size());
  for (const auto& src : sources_) {
    r.processes.push_back(process_snapshot(src));
    const Counters& c = src.counters;
    r.counters.events_received += c.events_received;
    r.counters.batches_received += c.batches_received;
    r.counters.agent_dropped += c.agent_dropped;
    r.counters.lost_batches += c.lost_batches;
    r.counters.late_events += c.late_events;
    r.counters.unpaired_events += c.unpaired_events;
  }
  return r;
}

WindowMetrics RankTracker::window_metrics(const WindowAccumulator& acc, std::int64_t t_ns,
                                          const PendingCells& pending) const {
  const bool totals = acc.is_totals();
  const std::int64_t lo_cell =
      totals ? std::numeric_limits<std::int64_t>::min() : cell_of(t_ns) - acc.window_cells();
  const std::int64_t lo_ns = totals ? start_ns_ : t_ns - acc.window_cells() * res_;
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
  f.start_ns = std::max(lo_ns, start_ns_);
  f.end_ns = finished_ ? std::min(t_ns, end_ns_) : t_ns;
  f.real_device = device_ != DeviceSignal::kComputeProxy;
  f.has_batch_size = steps_.has_batch_size();
  return make_metrics(f, config_.verdict);
}

ProcessSnapshot RankTracker::process_snapshot(const SourceTracker& src) const {
  ProcessSnapshot p;
  p.host = src.info.host;
  p.pid = src.info.pid;
  p.ppid = src.info.ppid;
  p.role = src.info.role;
  p.device_source = src.info.device_source;
  p.agent_version = src.info.agent_version;
  p.start_ns = src.start_ns;
  p.last_seen_ns = src.last_seen_ns;
  p.watermark_ns = src.watermark_ns;
  p.finished = src.finished;
  for (const OpenRegion& r : src.open)
    p.open_regions += r.orphan_end ? 0 : 1;
  p.counters = src.counters;
  return p;
}

Timeline RankTracker::timeline(const NameTable& names, std::int64_t seconds) const {
  Timeline tl;
  tl.job = job_;
  tl.rank = rank_;
  tl.to_ns = watermark_ns_;
  const std::int64_t span =
      std::min(config_.timeline_ns,
               std::clamp<std::int64_t>(seconds, 0, kTimeLimit / kNsPerSecond) * kNsPerSecond);
  tl.from_ns = tl.to_ns - span;
  timeline_.for_each_region([&](const TimelineEntry& e) {
    if (e.end_ns < tl.from_ns || e.start_ns > tl.to_ns) return;
    tl.regions.push_back(TimelineRegion{e.start_ns, e.end_ns, false, sources_[e.source].info.pid,
                                        e.tid, e.mask, std::string(names.str(e.cat)),
                                        std::string(names.str(e.name))});
  });
  for (const auto& src : sources_) {
    for (const OpenRegion& r : src.open) {
      if (r.orphan_end || src.watermark_ns < tl.from_ns) continue;
      tl.regions.push_back(TimelineRegion{
          r.begin_ns, std::max(src.watermark_ns, r.begin_ns), true, src.info.pid, r.tid, r.mask,
          std::string(names.str(r.cat)), std::string(names.str(r.name))});
    }
  }
  std::stable_sort(
      tl.regions.begin(), tl.regions.end(),
      [](const TimelineRegion& a, const TimelineRegion& b) { return a.start_ns < b.start_ns; });
  const auto& marks = timeline_.marks();
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const TimelineMarkEntry& m = marks[i];
    if (m.ts_ns < tl.from_ns || m.ts_ns > tl.to_ns) continue;
    tl.marks.push_back(TimelineMark{m.ts_ns, sources_[m.source].info.pid, m.tid,
                                    std::string(names.str(m.name)), m.value});
  }
  tl.truncated = timeline_.truncated_since(tl.from_ns);
  return tl;
}

void RankTracker::series(std::size_t metric, std::int64_t window_ns,
                         const std::vector<std::int64_t>& t_ns, std::vector<double>& out) const {
  if (t_ns.empty()) return;
  const std::int64_t t_end = window_end_ns();
  const std::int64_t kt = cell_of(t_end);
  const PendingCells pending = pending_cells(t_end);
  const std::int64_t w = window_ns / res_;
  const std::int64_t start_cell = cell_of(start_ns_);
  const std::int64_t known_from = history_.first_cell();  // [start_cell, known_from) is gone
  const std::int64_t lo = std::min(cell_of(t_ns.front()) - w, kt);
  const auto n = static_cast<std::size_t>(kt - lo);

  std::vector<Sums> prefix(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = lo + static_cast<std::int64_t>(i);
    prefix[i + 1] = prefix[i];
    if (k >= pending.first_cell) {
      const auto j = static_cast<std::size_t>(k - pending.first_cell);
      if (j < pending.cells.size()) prefix[i + 1].add(pending.cells[j]);
    } else if (const CellData* c = history_.cell(k)) {
      prefix[i + 1].add(*c);
    }
  }
  Sums total = windows_.back().sums();
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
    f.end_ns = finished_ ? std::min(t, end_ns_) : t;
    if (w > 0) {
      if (unknown(ct - w, ct)) {
        out.push_back(kNaN);
        continue;
      }
      f.sums = range(ct - w, ct);
      f.start_ns = std::max(t - window_ns, start_ns_);
    } else {
      if (unknown(ct, kt)) {
        out.push_back(kNaN);
        continue;
      }
      f.sums = total;
      sub(f.sums, range(ct, kt));
      f.start_ns = start_ns_;
    }
    if (f.end_ns <= f.start_ns) {
      out.push_back(kNaN);
      continue;
    }
    const double mean_step = f.sums.durations > 0 ? static_cast<double>(f.sums.duration_sum_ns) /
                                                        static_cast<double>(f.sums.durations) / 1e9
                                                  : kNaN;
    f.step_p50_s = f.step_p95_s = mean_step;
    f.real_device = device_ != DeviceSignal::kComputeProxy;
    f.has_batch_size = steps_.has_batch_size();
    out.push_back(series_metric_value(make_metrics(f, config_.verdict), metric));
  }
}

std::size_t RankTracker::approx_bytes() const {
  std::size_t n = sizeof(*this) + job_.capacity();
  n += sources_.capacity() * sizeof(SourceTracker);
  for (const auto& s : sources_) {
    n += s.open.bytes() + s.info.host.capacity() + s.info.job.capacity() +
         s.info.agent_version.capacity();
  }
  n += map_.bytes();
  n += pending_.bytes();
  n += history_.cells.bytes() + history_.steps.bytes();
  for (const auto& w : windows_)
    n += sizeof(w) + w.durations().bytes();
  n += steps_.bytes() + timeline_.bytes() + gpu_.bytes();
  n += scratch_hists_.capacity() * sizeof(MaskHistogram) +
       scratch_open_.capacity() * sizeof(OverlayPiece) + scratch_edges_.capacity() * sizeof(Edge) +
       scratch_pieces_.capacity() * sizeof(OverlayPiece);
  return n;
}

}  // namespace stallwatch::collector::detail
