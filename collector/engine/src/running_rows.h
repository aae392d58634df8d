// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cell_rows.h"

namespace stallwatch::collector::detail {

// Merges keyed rows (not "other" rows) of the same key (`row_key(row)`) into
// one, sorting them by key: the pending cells' rows that a tick lays over
// RunningRows::for_each_with().
template <class Row>
void merge_rows_by_key(std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return row_key(a) < row_key(b); });
  std::size_t n = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (n > 0 && row_key(rows[n - 1]) == row_key(rows[i])) {
      rows[n - 1].sums.add(rows[i].sums);
    } else {
      rows[n++] = rows[i];
    }
  }
  rows.resize(n);
}

// Running per-key sums of one sliding window over a tracker's finalized
// cells (CellRows): the rows of every finalized cell at or after lo_cell(),
// summed by key (`row_key(row)`, found by argument lookup), and the cells'
// "other" rows summed apart. The tracker reports each cell it finalizes
// (on_cell) and each it drops (on_evicted), in order; a tick moves the start
// with move_to(), which subtracts the cells that left.
// Each cell is thus added once and subtracted once, so a tick costs what
// changed, not the window's length (as WindowAccumulator does for the
// window sums). The sums are integers, so a subtraction undoes its addition
// exactly, and a key whose count (Sums::none()) returns to zero is dropped:
// the table holds the keys of the window's cells, no more.
//
// It holds every finalized cell from lo_cell() on; a caller whose window
// ends before the newest finalized cell must not read it (see
// KernelTracker::running()). for_each_with() reads it with rows that are
// not finalized (the pending cells') laid over it.
//
// Single-threaded; owned by its tracker.
template <class Row, class Key, class Sums, class Hash = std::hash<Key>>
class RunningRows {
 public:
  explicit RunningRows(std::int64_t window_cells) : window_cells_(window_cells) {}

  std::int64_t window_cells() const { return window_cells_; }
  std::int64_t lo_cell() const { return lo_cell_; }

  void on_cell(std::int64_t cell, const std::vector<Row>& rows) {
    if (cell < lo_cell_) return;
    for (const Row& r : rows)
      add(r);
  }
  void on_evicted(std::int64_t cell, const std::vector<Row>& rows) {
    if (cell < lo_cell_) return;
    for (const Row& r : rows)
      sub(r);
    lo_cell_ = cell + 1;
  }
  // Moves the window's start to `lo` over `cells`: forward subtracts the
  // cells that left; backward (a window end that moved back) rebuilds.
  void move_to(std::int64_t lo, const CellRows<Row>& cells) {
    if (lo == lo_cell_) return;
    if (lo < lo_cell_) {
      by_key_.clear();
      other_ = Sums{};
      cells.for_each_row(lo, std::numeric_limits<std::int64_t>::max(),
                         [&](const Row& r) { add(r); });
    } else {
      cells.for_each_row(lo_cell_, lo, [&](const Row& r) { sub(r); });
    }
    lo_cell_ = lo;
  }

  void add(const Row& r) {
    if (r.other) {
      other_.add(r.sums);
    } else {
      by_key_[row_key(r)].add(r.sums);
    }
  }
  void sub(const Row& r) {
    if (r.other) {
      other_.sub(r.sums);
      return;
    }
    auto it = by_key_.find(row_key(r));
    if (it == by_key_.end()) return;  // never added: nothing to undo
    it->second.sub(r.sums);
    if (it->second.none()) by_key_.erase(it);
  }

  // Calls fn(const Key&, const Sums&) for each key of the table and of
  // `over` (keyed rows, each key once: a pending cell's merged names), with
  // the sums of both, in no order, without changing the table: the keys it
  // holds take `over`'s sums for the call and give them back after.
  template <class Fn>
  void for_each_with(const std::vector<Row>& over, Fn&& fn) {
    for (const Row& r : over) {
      if (auto it = by_key_.find(row_key(r)); it != by_key_.end()) {
        it->second.add(r.sums);
      } else {
        fn(row_key(r), r.sums);
      }
    }
    for (const auto& [key, sums] : by_key_)
      fn(key, sums);
    for (const Row& r : over) {
      if (auto it = by_key_.find(row_key(r)); it != by_key_.end()) it->second.sub(r.sums);
    }
  }
  // Calls fn(const Key&, const Sums&) for each key, in no order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [key, sums] : by_key_)
      fn(key, sums);
  }
  std::size_t size() const { return by_key_.size(); }
  // The cells' "other" rows, summed.
  const Sums& other() const { return other_; }

  std::size_t bytes() const {
    // A hash node holds its value and a pointer; each bucket is a pointer.
    return by_key_.size() * (sizeof(typename Map::value_type) + sizeof(void*)) +
           by_key_.bucket_count() * sizeof(void*);
  }

 private:
  using Map = std::unordered_map<Key, Sums, Hash>;

  std::int64_t window_cells_;
  std::int64_t lo_cell_ = std::numeric_limits<std::int64_t>::min();
  Map by_key_;
  Sums other_;
};

// A tracker's finalized cells before first_cell are dropped, and every
// window's running sums lose them.
template <class Row, class Running>
void trim_cells(CellRows<Row>& finalized, std::vector<Running>& windows, std::int64_t first_cell) {
  finalized.pop_before(first_cell, [&](std::int64_t cell, const std::vector<Row>& rows) {
    for (Running& w : windows)
      w.on_evicted(cell, rows);
  });
}

// Window `index`'s running sums moved to the window ending at end_cell, or
// nullptr when a finalized cell lies past that end (the caller then merges
// the window's rows itself).
template <class Row, class Running>
Running* running_window(const CellRows<Row>& finalized, std::vector<Running>& windows,
                        std::size_t index, std::int64_t end_cell) {
  Running& w = windows[index];
  w.move_to(end_cell - w.window_cells(), finalized);
  return finalized.end_cell() > end_cell ? nullptr : &w;
}

// Lists the first `shown` of `named` ((key, sums) pairs) in the order of
// `before` through `make(key, sums)` into `listed`, and adds the sums of the
// rest to `other`: a top-N table and its "other" row.
template <class Named, class Sums, class Before, class Make, class Entry>
void split_top(std::vector<Named>& named, std::size_t shown, Before before, Make make,
               std::vector<Entry>& listed, Sums& other) {
  shown = std::min(shown, named.size());
  std::partial_sort(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(shown), named.end(),
                    before);
  listed.reserve(shown);
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (i < shown) {
      listed.push_back(make(named[i].first, named[i].second));
    } else {
      other.add(named[i].second);
    }
  }
}

}  // namespace stallwatch::collector::detail
