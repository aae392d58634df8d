// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "batch_coverage.h"
#include "engine/cell_data.h"
#include "engine/engine_config.h"
#include "finalized_history.h"
#include "io_volume_tracker.h"
#include "launch_tracker.h"
#include "open_overlay.h"
#include "pending_coverage.h"
#include "rank_sources.h"
#include "step_tracker.h"
#include "window_accumulator.h"

namespace stallwatch::collector::detail {

// The not-finalized cells [first_cell, first_cell + cells.size()) of a rank
// up to a window end, open regions included.
struct PendingCells {
  struct Step {
    std::int64_t ts_ns;
    std::int64_t duration_ns;
  };
  std::int64_t first_cell = 0;
  std::vector<Sums> cells;
  std::vector<Step> durations;  // steps with a duration, by duration
};

// The exact window arithmetic of one rank. Time is split at the finalized
// horizon H, set by the caller from the rank's watermark minus the lateness
// and rounded down to the resolution grid:
//   - before H, each resolution cell is folded into a CellData (exact
//     nanoseconds per quantity, steps) kept in the FinalizedHistory, and
//     every window holds running sums over those cells (WindowAccumulator);
//   - from H on, the PendingCoverage holds the union of the closed regions
//     and each cell's histogram; the batch's closed regions come in once per
//     batch (add()). Open regions are laid over it (OpenOverlay) when a tick
//     or a finalization needs them, up to their own source's watermark.
// When H moves, the cells it passes are folded (closed regions and open
// regions as of that moment) with their steps, handed to the windows and
// trimmed from the pending coverage. An open region is therefore final up to
// its source's watermark as known when H passes it. A jump of H past the
// whole history (a rank silent for an hour) folds what falls out of the
// history straight into the totals (the bulk).
//
// Single-threaded; owned by one RankTracker, which gives it the rank's
// sources (for their open regions and watermarks) and steps when it
// finalizes or reads. It does not decide where H is, what is late, or what
// the metrics of a window are (the caller makes them from window sums and
// pending cells). Memory is bounded by the history and the lateness.
class WindowFinalizer {
 public:
  explicit WindowFinalizer(const EngineConfig& config);

  std::int64_t horizon_ns() const { return horizon_ns_; }
  // The rank's start moved to `start_ns` (`first`: it has one now): while
  // nothing is finalized, the history starts at its cell.
  void on_start(std::int64_t start_ns, bool first);
  // The horizon the coming batch may move to: time before the history that
  // it would keep goes straight to the bulk.
  void expect_horizon(std::int64_t horizon_ns);
  // Merges the intervals of a batch (leaves `batch` empty).
  void add(BatchCoverage& batch) { coverage_.merge(batch); }
  // Moves the horizon to `horizon_ns`: folds the cells it passes, the open
  // regions of `sources` included, finalizes the steps, the I/O volume and
  // the launches before it and hands them to the windows.
  void finalize_to(std::int64_t horizon_ns, const std::vector<SourceTracker>& sources,
                   StepTracker& steps, IoVolumeTracker& io, LaunchTracker& launches);
  // Slides every window (not the totals) to end at cell `end_cell`.
  void slide_to(std::int64_t end_cell);
  // The not-finalized cells up to `t_ns` (on the resolution grid), with the
  // open regions of `sources`, the pending steps, I/O volume and launches.
  PendingCells pending_cells(std::int64_t t_ns, const std::vector<SourceTracker>& sources,
                             const StepTracker& steps, const IoVolumeTracker& io,
                             const LaunchTracker& launches) const;

  const FinalizedHistory& history() const { return history_; }
  // The configured windows, then the totals.
  const std::vector<WindowAccumulator>& windows() const { return windows_; }
  const WindowAccumulator& totals() const { return windows_.back(); }
  // Finalized step durations per bucket of EngineConfig::step_histogram_bounds_ns
  // (at most bound i and above bound i - 1; longer ones are not kept here).
  const std::vector<std::uint64_t>& step_buckets() const { return step_buckets_; }

  // Heap memory held.
  std::size_t bytes() const;

 private:
  std::int64_t cell_of(std::int64_t t) const;
  void push_cell(std::int64_t k, const CellData& c);
  void push_step(const StepTracker::Step& s);

  std::int64_t res_;
  std::int64_t horizon_ns_ = kNoTime;
  PendingCoverage coverage_;
  FinalizedHistory history_;
  std::vector<WindowAccumulator> windows_;
  std::vector<std::int64_t> step_bounds_;
  std::vector<std::uint64_t> step_buckets_;
  mutable OpenOverlay overlay_;
  mutable std::vector<MaskHistogram> scratch_hists_;
};

}  // namespace stallwatch::collector::detail
