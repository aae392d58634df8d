// SPDX-License-Identifier: MIT
#include "window_finalizer.h"

#include <algorithm>
#include <cassert>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

WindowFinalizer::WindowFinalizer(const EngineConfig& config)
    : res_(config.resolution_ns),
      coverage_(config.resolution_ns),
      history_(static_cast<std::size_t>((config.history_ns + config.resolution_ns - 1) /
                                        config.resolution_ns),
               config.max_steps_kept),
      step_bounds_(config.step_histogram_bounds_ns),
      step_buckets_(step_bounds_.size(), 0) {
  for (std::int64_t w : config.windows_ns)
    windows_.emplace_back(w / res_, res_);
  windows_.emplace_back(0, res_);
}

std::int64_t WindowFinalizer::cell_of(std::int64_t t) const {
  return floor_div(t, res_);
}

void WindowFinalizer::on_start(std::int64_t start_ns, bool first) {
  if (first) {
    history_.cell_end = cell_of(start_ns);
  } else if (history_.cells.empty()) {
    history_.cell_end = std::min(history_.cell_end, cell_of(start_ns));
  }
}

void WindowFinalizer::expect_horizon(std::int64_t horizon_ns) {
  coverage_.set_bulk_before(horizon_ns -
                            static_cast<std::int64_t>(history_.cells.capacity()) * res_);
}

void WindowFinalizer::finalize_to(std::int64_t horizon_ns,
                                  const std::vector<SourceTracker>& sources, StepTracker& steps,
                                  IoVolumeTracker& io, LaunchTracker& launches) {
  const std::int64_t k0 = history_.cell_end;
  const std::int64_t k1 = cell_of(horizon_ns);
  if (k1 > k0) {
    const auto cap = static_cast<std::int64_t>(history_.cells.capacity());
    const std::int64_t retained = std::max(k0, k1 - cap);
    const std::int64_t retained_ns = retained * res_;
    overlay_.for_each_change(
        coverage_.map(), sources, k0 * res_, k1 * res_,
        [&](std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask) {
          coverage_.count_change(s, e, old_mask, new_mask, retained_ns);
        });

    Sums bulk = coverage_.fold_bulk(k0, retained);
    std::vector<CellData> cells(static_cast<std::size_t>(k1 - retained));
    for (std::int64_t k = retained; k < k1; ++k)
      cells[static_cast<std::size_t>(k - retained)] = coverage_.fold_cell(k);

    if (retained > k0) {
      // The jump leaves nothing of the old history inside any window.
      for (auto& w : windows_) {
        if (!w.is_totals()) w.move_to(std::max(w.lo_cell(), retained), history_);
      }
      history_.cells.clear();
      history_.cell_end = retained;
    }

    steps.finalize(horizon_ns, [&](const StepTracker::Step& s) {
      const std::int64_t k = std::max(cell_of(s.ts_ns), k0);
      if (k < retained) {
        bulk.steps += 1;
        bulk.durations += s.has_duration ? 1 : 0;
        bulk.duration_sum_ns += s.duration_ns;
        bulk.samples += s.samples;
      } else {
        CellData& c = cells[static_cast<std::size_t>(std::min(k, k1 - 1) - retained)];
        c.steps += 1;
        c.durations += s.has_duration ? 1 : 0;
        c.duration_sum_ns += s.duration_ns;
        c.samples += s.samples;
      }
      if (s.has_duration) push_step(s);
    });
    io.finalize(k1, [&](std::int64_t cell, const IoVolume& v) {
      const std::int64_t k = std::max(cell, k0);
      if (k < retained) {
        bulk.io.add(v);
      } else {
        cells[static_cast<std::size_t>(std::min(k, k1 - 1) - retained)].io.add(v);
      }
    });
    launches.finalize(k1, [&](std::int64_t cell, const LaunchCounts& l) {
      const std::int64_t k = std::max(cell, k0);
      if (k < retained) {
        bulk.launch.add(l);
      } else {
        cells[static_cast<std::size_t>(std::min(k, k1 - 1) - retained)].launch.add(l);
      }
    });

    windows_.back().on_bulk(bulk);
    for (std::int64_t k = retained; k < k1; ++k)
      push_cell(k, cells[static_cast<std::size_t>(k - retained)]);
  }
  coverage_.trim_before(horizon_ns);
  horizon_ns_ = horizon_ns;
}

void WindowFinalizer::push_cell(std::int64_t k, const CellData& c) {
  assert(k == history_.cell_end);
  const std::int64_t evicted_k = history_.first_cell();
  auto evicted = history_.cells.push_back(c);
  history_.cell_end = k + 1;
  if (evicted) {
    for (auto& w : windows_)
      w.on_cell_evicted(evicted_k, *evicted, history_);
  }
  for (auto& w : windows_)
    w.on_cell(k, c);
}

void WindowFinalizer::push_step(const StepTracker::Step& s) {
  if (!step_bounds_.empty()) {
    const auto bucket = std::lower_bound(step_bounds_.begin(), step_bounds_.end(), s.duration_ns);
    if (bucket != step_bounds_.end())
      ++step_buckets_[static_cast<std::size_t>(bucket - step_bounds_.begin())];
  }
  const StepRecord rec{s.ts_ns, s.duration_ns};
  const std::uint64_t evicted_seq = history_.first_step();
  auto evicted = history_.steps.push_back(rec);
  const std::uint64_t seq = history_.step_end++;
  if (evicted) {
    for (auto& w : windows_)
      w.on_step_evicted(evicted_seq, *evicted);
  }
  for (auto& w : windows_)
    w.on_step(seq, rec);
}

void WindowFinalizer::slide_to(std::int64_t end_cell) {
  for (auto& w : windows_) {
    if (!w.is_totals()) w.move_to(end_cell - w.window_cells(), history_);
  }
}

PendingCells WindowFinalizer::pending_cells(std::int64_t t_ns,
                                            const std::vector<SourceTracker>& sources,
                                            const StepTracker& steps, const IoVolumeTracker& io,
                                            const LaunchTracker& launches) const {
  PendingCells out;
  out.first_cell = history_.cell_end;
  const std::int64_t kt = cell_of(t_ns);
  if (kt <= out.first_cell) return out;
  const auto n = static_cast<std::size_t>(kt - out.first_cell);
  auto& hists = scratch_hists_;
  hists.assign(n, MaskHistogram{});
  for (std::size_t i = 0; i < n; ++i) {
    if (const MaskHistogram* h = coverage_.cell(out.first_cell + static_cast<std::int64_t>(i))) {
      hists[i] = *h;
    }
  }
  overlay_.for_each_change(
      coverage_.map(), sources, out.first_cell * res_, kt * res_,
      [&](std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask) {
        for (std::int64_t k = cell_of(s); s < e; ++k) {
          const std::int64_t piece_end = std::min(e, (k + 1) * res_);
          MaskHistogram& h = hists[static_cast<std::size_t>(k - out.first_cell)];
          h[old_mask] -= piece_end - s;
          h[new_mask] += piece_end - s;
          s = piece_end;
        }
      });
  out.cells.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    fold(hists[i], out.cells[i].ns);
  steps.for_each_pending(t_ns, [&](const StepTracker::Step& s) {
    const std::int64_t k = std::clamp(cell_of(s.ts_ns), out.first_cell, kt - 1);
    Sums& c = out.cells[static_cast<std::size_t>(k - out.first_cell)];
    c.steps += 1;
    c.samples += s.samples;
    if (s.has_duration) {
      c.durations += 1;
      c.duration_sum_ns += s.duration_ns;
      out.durations.push_back(PendingCells::Step{s.ts_ns, s.duration_ns});
    }
  });
  io.for_each_pending(kt, [&](std::int64_t cell, const IoVolume& v) {
    const std::int64_t k = std::clamp(cell, out.first_cell, kt - 1);
    out.cells[static_cast<std::size_t>(k - out.first_cell)].io.add(v);
  });
  launches.for_each_pending(kt, [&](std::int64_t cell, const LaunchCounts& l) {
    const std::int64_t k = std::clamp(cell, out.first_cell, kt - 1);
    out.cells[static_cast<std::size_t>(k - out.first_cell)].launch.add(l);
  });
  // Sorted once here, so each window only filters.
  std::sort(out.durations.begin(), out.durations.end(),
            [](const PendingCells::Step& a, const PendingCells::Step& b) {
              return a.duration_ns < b.duration_ns;
            });
  return out;
}

std::size_t WindowFinalizer::bytes() const {
  std::size_t n = coverage_.bytes() + history_.cells.bytes() + history_.steps.bytes() +
                  step_bounds_.capacity() * sizeof(std::int64_t) +
                  step_buckets_.capacity() * sizeof(std::uint64_t);
  for (const auto& w : windows_)
    n += sizeof(w) + w.durations().bytes();
  n += overlay_.bytes() + scratch_hists_.capacity() * sizeof(MaskHistogram);
  return n;
}

}  // namespace stallwatch::collector::detail
