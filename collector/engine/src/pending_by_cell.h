// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {

// A rank's sums of type T per resolution cell that the finalized horizon has
// not passed yet, sorted by cell: what IoVolumeTracker, LaunchTracker and
// KernelTracker hold until WindowFinalizer (or the rank) folds them into the
// finalized cells. Events mostly arrive in time order, so at() finds the
// newest cell in one compare; an older cell costs a binary search, a new one
// in the middle an insert. Memory: one T per cell between the horizon and
// the newest event.
//
// Single-threaded; owned by its tracker.
template <class T>
class PendingByCell {
 public:
  // The sums of `cell`, value-initialized when the cell is new.
  T& at(std::int64_t cell) {
    if (!cells_.empty() && cells_.back().first == cell) [[likely]]
      return cells_.back().second;
    auto it = std::lower_bound(cells_.begin(), cells_.end(), cell,
                               [](const auto& entry, std::int64_t c) { return entry.first < c; });
    if (it == cells_.end() || it->first != cell) it = cells_.insert(it, {cell, T{}});
    return it->second;
  }

  // Calls fn(cell, const T&) for each cell before `until_cell`, in cell order.
  template <class Fn>
  void for_each(std::int64_t until_cell, Fn&& fn) const {
    for (const auto& [cell, sums] : cells_) {
      if (cell >= until_cell) break;
      fn(cell, sums);
    }
  }
  // Calls fn(cell, T&) for each cell before `until_cell`, in cell order (fn
  // may move the sums out), then forgets those cells.
  template <class Fn>
  void take_before(std::int64_t until_cell, Fn&& fn) {
    std::size_t n = 0;
    for (; n < cells_.size() && cells_[n].first < until_cell; ++n)
      fn(cells_[n].first, cells_[n].second);
    cells_.erase(cells_.begin(), cells_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  bool empty() const { return cells_.empty(); }
  std::size_t size() const { return cells_.size(); }
  // The cells' storage; what a T owns beyond its size is the tracker's to add.
  std::size_t bytes() const { return cells_.capacity() * sizeof(cells_[0]); }

 private:
  std::vector<std::pair<std::int64_t, T>> cells_;  // sorted by cell, each once
};

}  // namespace stallwatch::collector::detail
