// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {

// Cuts the rows of one finalized cell to its `per_cell` first by `less` and
// one "other" row (Row::other set) with the rest summed: how FileIoTracker
// and KernelTracker bound what a cell keeps. `rows` is left sorted by `less`.
template <class Row, class Less>
void keep_top_rows(std::vector<Row>& rows, std::size_t per_cell, Less less) {
  std::sort(rows.begin(), rows.end(), less);
  if (rows.size() <= per_cell) return;
  Row other;
  other.other = true;
  for (std::size_t i = per_cell; i < rows.size(); ++i)
    other.sums.add(rows[i].sums);
  rows.resize(per_cell);
  rows.push_back(other);
}

// The finalized cells of one rank's per-key tracker (FileIoTracker,
// KernelTracker), each with its rows, oldest cell first. Cells are pushed in
// increasing order, each once, and popped from the front when they leave the
// history.
//
// Single-threaded; owned by its tracker.
template <class Row>
class CellRows {
 public:
  void push(std::int64_t cell, std::vector<Row> rows) {
    cells_.emplace_back(cell, std::move(rows));
  }

  // Calls on_pop(cell, const std::vector<Row>&) for each cell before
  // `first_cell`, oldest first, then forgets it.
  template <class Fn>
  void pop_before(std::int64_t first_cell, Fn&& on_pop) {
    while (!cells_.empty() && cells_.front().first < first_cell) {
      on_pop(cells_.front().first, cells_.front().second);
      cells_.pop_front();
    }
  }

  // Calls fn(const Row&) for each row of the cells [lo_cell, hi_cell), in
  // cell order; finds lo_cell by binary search, so the cost is the rows read.
  template <class Fn>
  void for_each_row(std::int64_t lo_cell, std::int64_t hi_cell, Fn&& fn) const {
    auto it = std::lower_bound(cells_.begin(), cells_.end(), lo_cell,
                               [](const auto& c, std::int64_t k) { return c.first < k; });
    for (; it != cells_.end() && it->first < hi_cell; ++it) {
      for (const Row& r : it->second)
        fn(r);
    }
  }

  bool empty() const { return cells_.empty(); }
  // One past the newest cell (the lowest int64 while there is none).
  std::int64_t end_cell() const {
    return cells_.empty() ? std::numeric_limits<std::int64_t>::min() : cells_.back().first + 1;
  }
  std::size_t rows() const {
    std::size_t n = 0;
    for (const auto& cell : cells_)
      n += cell.second.size();
    return n;
  }
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& cell : cells_)
      n += sizeof(cell) + cell.second.capacity() * sizeof(Row);
    return n;
  }

 private:
  std::deque<std::pair<std::int64_t, std::vector<Row>>> cells_;  // by cell
};

}  // namespace stallwatch::collector::detail
