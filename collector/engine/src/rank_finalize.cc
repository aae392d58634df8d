#include <algorithm>
#include <array>
#include <cassert>

#include "engine/time_math.h"
#include "rank_tracker.h"

namespace stallwatch::collector::detail {

void RankTracker::add_to_bulk(std::int64_t len, ClassMask old_mask, ClassMask new_mask) {
  bulk_[old_mask] -= len;
  bulk_[new_mask] += len;
}

// Lays the open regions (each from its effective begin to its own source's
// watermark, clipped to [from, to)) over the map and reports every piece
// whose mask they change, as add() would.
template <class Emit>
void RankTracker::overlay(std::int64_t from, std::int64_t to, Emit&& emit) const {
  if (from >= to) return;
  auto& open = scratch_open_;
  open.clear();
  for (const auto& src : sources_) {
    for (const OpenRegion& r : src.open) {
      const ClassMask m = r.mask & kMetricClasses;
      if (r.orphan_end || m == 0) continue;
      const std::int64_t a = std::max(r.begin_eff_ns, from);
      const std::int64_t b = std::min(src.watermark_ns, to);
      if (a < b) open.push_back(OverlayPiece{a, b, m});
    }
  }
  if (open.empty()) return;
  auto& pieces = scratch_pieces_;
  pieces.clear();
  if (open.size() == 1) {
    pieces.push_back(open.front());
  } else {
    auto& edges = scratch_edges_;
    edges.clear();
    for (const auto& p : open) {
      edges.push_back(Edge{p.start, p.mask, 1});
      edges.push_back(Edge{p.end, p.mask, -1});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.t < y.t; });
    std::array<int, 6> counts{};
    ClassMask current = 0;
    std::int64_t at = edges.front().t;
    for (std::size_t i = 0; i < edges.size();) {
      const std::int64_t t = edges[i].t;
      if (current != 0 && t > at) pieces.push_back(OverlayPiece{at, t, current});
      for (; i < edges.size() && edges[i].t == t; ++i) {
        for (int c = 0; c < 6; ++c) {
          if (edges[i].mask & (1u << c)) counts[static_cast<std::size_t>(c)] += edges[i].delta;
        }
      }
      current = 0;
      for (int c = 0; c < 6; ++c) {
        if (counts[static_cast<std::size_t>(c)] > 0) current = ClassMask(current | (1u << c));
      }
      at = t;
    }
  }
  for (const auto& p : pieces) {
    map_.for_each(p.start, p.end, [&](std::int64_t s, std::int64_t e, ClassMask m) {
      const auto merged = ClassMask(m | p.mask);
      if (merged != m) emit(s, e, m, merged);
    });
  }
}

void RankTracker::finalize_to(std::int64_t horizon_ns) {
  const std::int64_t k0 = history_.cell_end;
  const std::int64_t k1 = cell_of(horizon_ns);
  if (k1 > k0) {
    const auto cap = static_cast<std::int64_t>(history_.cells.capacity());
    const std::int64_t retained = std::max(k0, k1 - cap);
    const std::int64_t retained_ns = retained * res_;
    overlay(k0 * res_, k1 * res_,
            [&](std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask) {
              if (s < retained_ns) {
                const std::int64_t cut = std::min(e, retained_ns);
                add_to_bulk(cut - s, old_mask, new_mask);
                s = cut;
              }
              for (std::int64_t k = cell_of(s); s < e; ++k) {
                const std::int64_t piece_end = std::min(e, (k + 1) * res_);
                MaskHistogram& h = pending_.at(k);
                h[old_mask] -= piece_end - s;
                h[new_mask] += piece_end - s;
                s = piece_end;
              }
            });

    Sums bulk;
    fold(bulk_, bulk.ns);
    for (std::int64_t k = std::max(k0, pending_.first()); k < retained; ++k) {
      const MaskHistogram* h = pending_.find(k);
      if (h == nullptr) break;
      fold(*h, bulk.ns);
    }
    std::vector<CellData> cells(static_cast<std::size_t>(k1 - retained));
    for (std::int64_t k = retained; k < k1; ++k) {
      if (const MaskHistogram* h = pending_.find(k)) {
        std::array<std::int64_t, kQuantityCount> ns{};
        fold(*h, ns);
        cells[static_cast<std::size_t>(k - retained)] = to_cell(ns);
      }
    }

    if (retained > k0) {
      // The jump leaves nothing of the old history inside any window.
      for (auto& w : windows_) {
        if (!w.is_totals()) w.move_to(std::max(w.lo_cell(), retained), history_);
      }
      history_.cells.clear();
      history_.cell_end = retained;
    }

    steps_.finalize(horizon_ns, [&](const StepTracker::Step& s) {
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

    windows_.back().on_bulk(bulk);
    for (std::int64_t k = retained; k < k1; ++k) {
      push_cell(k, cells[static_cast<std::size_t>(k - retained)]);
    }
  }
  map_.trim_before(horizon_ns);
  pending_.drop_before(k1);
  bulk_.fill(0);
  expire_orphan_ends(horizon_ns);
  horizon_ns_ = horizon_ns;
}

void RankTracker::push_cell(std::int64_t k, const CellData& c) {
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

void RankTracker::push_step(const StepTracker::Step& s) {
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

void RankTracker::expire_orphan_ends(std::int64_t horizon_ns) {
  for (auto& src : sources_) {
    auto& entries = src.open.entries();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].orphan_end && entries[i].end_eff_ns < horizon_ns) {
        src.counters.unpaired_events += 1;
        continue;
      }
      entries[kept++] = entries[i];
    }
    entries.resize(kept);
  }
}

RankTracker::PendingCells RankTracker::pending_cells(std::int64_t t_ns) const {
  PendingCells out;
  out.first_cell = history_.cell_end;
  const std::int64_t kt = cell_of(t_ns);
  if (kt <= out.first_cell) return out;
  const auto n = static_cast<std::size_t>(kt - out.first_cell);
  auto& hists = scratch_hists_;
  hists.assign(n, MaskHistogram{});
  for (std::size_t i = 0; i < n; ++i) {
    if (const MaskHistogram* h = pending_.find(out.first_cell + static_cast<std::int64_t>(i))) {
      hists[i] = *h;
    }
  }
  overlay(out.first_cell * res_, kt * res_,
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
  steps_.for_each_pending(t_ns, [&](const StepTracker::Step& s) {
    const std::int64_t k = std::clamp(cell_of(s.ts_ns), out.first_cell, kt - 1);
    Sums& c = out.cells[static_cast<std::size_t>(k - out.first_cell)];
    c.steps += 1;
    c.samples += s.samples;
    if (s.has_duration) {
      c.durations += 1;
      c.duration_sum_ns += s.duration_ns;
      out.durations.push_back(PendingStep{s.ts_ns, s.duration_ns});
    }
  });
  // Sorted once here, so each window only filters.
  std::sort(
      out.durations.begin(), out.durations.end(),
      [](const PendingStep& a, const PendingStep& b) { return a.duration_ns < b.duration_ns; });
  return out;
}

}  // namespace stallwatch::collector::detail
