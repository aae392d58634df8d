// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "engine/cell_data.h"
#include "finalized_history.h"
#include "sorted_durations.h"

namespace stallwatch::collector::detail {

// Running sums of one window of one rank over its finalized history: the
// cells in [lo, horizon) and the kept step durations of steps at or after
// lo. Each finalized cell and step is added once and removed once, so a tick
// costs O(cells the window slid by), not O(window length). A totals
// accumulator (window_cells == 0) never drops cells, only steps that fall
// out of the kept step history.
//
// Single-threaded; driven by its WindowFinalizer, which reports every
// finalized or evicted cell and step in order.
class WindowAccumulator {
 public:
  WindowAccumulator(std::int64_t window_cells, std::int64_t resolution_ns);

  bool is_totals() const { return window_cells_ == 0; }
  std::int64_t window_cells() const { return window_cells_; }
  std::int64_t lo_cell() const { return lo_cell_; }
  const Sums& sums() const { return sums_; }
  const SortedDurations& durations() const { return durations_; }

  void on_cell(std::int64_t k, const CellData& c);
  // Cells finalized straight past the history (a watermark jump): only the
  // totals take them.
  void on_bulk(const Sums& s) {
    if (is_totals()) sums_.add(s);
  }
  void on_cell_evicted(std::int64_t k, const CellData& c, const FinalizedHistory& h);
  void on_step(std::uint64_t seq, const StepRecord& s);
  void on_step_evicted(std::uint64_t seq, const StepRecord& s);

  // Slides the window start to cell `lo` (no-op for totals).
  void move_to(std::int64_t lo, const FinalizedHistory& h);

 private:
  void drop_steps_before(std::int64_t lo, const FinalizedHistory& h);
  void rebuild(std::int64_t lo, const FinalizedHistory& h);

  std::int64_t window_cells_;
  std::int64_t resolution_ns_;
  std::int64_t lo_cell_;
  std::uint64_t first_seq_ = 0;  // finalized steps [first_seq_, end) are in durations_
  Sums sums_;
  SortedDurations durations_;
};

}  // namespace stallwatch::collector::detail
