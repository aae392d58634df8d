// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "batch_coverage.h"
#include "coverage_map.h"
#include "engine/cell_data.h"
#include "pending_histograms.h"

namespace stallwatch::collector::detail {

// What one rank knows of its time from the finalized horizon on: the union
// of its closed regions (a CoverageMap) and, kept up to date with each change
// of the map, each resolution cell's histogram of time per class combination
// (PendingHistograms), so a tick reads the cells without a sweep.
//
// Time before the bulk bound (set before each batch: what a big horizon jump
// is about to push past the whole history) is not kept per cell but in one
// histogram, the bulk, which only the totals receive.
//
// Single-threaded; owned by one WindowFinalizer, which folds its cells when
// the horizon passes them and then trims them. It holds closed regions only:
// open ones are laid over it (OpenOverlay) and counted with count_change().
class PendingCoverage {
 public:
  explicit PendingCoverage(std::int64_t resolution_ns) : res_(resolution_ns) {}

  // Time before `ns` goes to the bulk from now on.
  void set_bulk_before(std::int64_t ns) { bulk_before_ns_ = ns; }
  // Merges the intervals a batch gathered in `batch` into the map and the
  // cells (the bulk before the bound), leaving `batch` empty.
  void merge(BatchCoverage& batch);
  // Counts [s, e) as changed from `old_mask` to `new_mask` outside the map
  // (an open region laid over it): its part before `bulk_before_ns` in the
  // bulk, the rest in the cells.
  void count_change(std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask,
                    std::int64_t bulk_before_ns);

  // The bulk's quantities, plus those of the cells from `from_cell` (or the
  // first kept) up to `to_cell` or the first cell without a histogram.
  Sums fold_bulk(std::int64_t from_cell, std::int64_t to_cell) const;
  // Cell `k`'s quantities (zero when it has none).
  CellData fold_cell(std::int64_t k) const;
  // Cell `k`'s histogram, or nullptr.
  const MaskHistogram* cell(std::int64_t k) const { return cells_.find(k); }
  const CoverageMap& map() const { return map_; }

  // Forgets the map before `horizon_ns` and the cells before the one that
  // holds it, and empties the bulk.
  void trim_before(std::int64_t horizon_ns);

  // Heap memory held.
  std::size_t bytes() const { return map_.bytes() + cells_.bytes(); }

 private:
  std::int64_t cell_of(std::int64_t t) const;

  std::int64_t res_;
  CoverageMap map_;
  PendingHistograms cells_;
  MaskHistogram bulk_{};
  std::int64_t bulk_before_ns_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace stallwatch::collector::detail
