// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cell_rows.h"
#include "engine/name_table.h"
#include "pending_by_cell.h"
#include "running_rows.h"

namespace stallwatch::collector::detail {

// The device work of one name, summed.
struct KernelSums {
  std::int64_t device_ns = 0;
  std::int64_t count = 0;

  void add(const KernelSums& s) {
    device_ns += s.device_ns;
    count += s.count;
  }
  void sub(const KernelSums& s) {
    device_ns -= s.device_ns;
    count -= s.count;
  }
  bool none() const { return count == 0; }
};

struct KernelRow {
  NameId name = NameTable::kEmpty;
  KernelSums sums;
  bool other = false;  // the cell's names past its top, summed (name unused)
};

inline NameId row_key(const KernelRow& r) {
  return r.name;
}

using RunningKernels = RunningRows<KernelRow, NameId, KernelSums>;

// The device work of one rank (kernels, memcpys and memsets: the work a
// launch call's correlation id points at) per name, per resolution cell of
// the work's end (docs/api.md, "Top kernels by device time"). EventWalk
// decides what counts (ending at or after the finalized horizon and the
// rank's start); this only sums. Until WindowFinalizer's horizon passes a
// cell, it holds exact sums for every name of the cell; a finalized cell
// keeps its `per_cell` names with the most device time (ties: the name the
// collector interned first) and one "other" row with the rest. Names are
// the engine's NameIds; the reader turns them into strings.
//
// For each window of `window_cells` it also keeps the running sums by name
// of the finalized cells in the window (RunningRows), so that a tick reads
// the window's names without re-merging its cells' rows.
//
// Memory: one entry per name and pending cell (the lateness), at most
// per_cell + 1 rows for each cell of the history that had device work
// (trim()), and per window one entry per name of its finalized cells.
//
// Single-threaded; owned by one RankTracker.
class KernelTracker {
 public:
  KernelTracker(std::int64_t resolution_ns, std::size_t per_cell,
                const std::vector<std::int64_t>& window_cells = {});

  // Device work named `name` that ended at `end_ns` after `duration_ns`.
  void add(std::int64_t end_ns, NameId name, std::int64_t duration_ns);
  // Finalizes the pending cells before `until_cell`: a cell before
  // `from_cell` counts as `from_cell`; cells before `keep_from` are outside
  // every window and dropped.
  void finalize(std::int64_t from_cell, std::int64_t until_cell, std::int64_t keep_from);
  // Forgets finalized cells before `first_cell` (the history's first).
  void trim(std::int64_t first_cell);

  // The running sums of window `index` (the order of the constructor's
  // `window_cells`) moved to the cells [end_cell - its cells, end_cell), or
  // null when a finalized cell is at or after `end_cell` (a window end that
  // moved back before the horizon): the caller then merges the rows.
  RunningKernels* running(std::size_t index, std::int64_t end_cell);
  std::size_t windows() const { return windows_.size(); }
  std::int64_t window_cells(std::size_t index) const { return windows_[index].window_cells(); }
  std::int64_t resolution_ns() const { return res_; }

  // Calls fn(const KernelRow&) for each row of the cells [lo_cell, hi_cell):
  // finalized cells' rows, then the pending cells' names (a pending cell
  // before `pending_from` counts there).
  template <class Fn>
  void for_each_row(std::int64_t lo_cell, std::int64_t hi_cell, std::int64_t pending_from,
                    Fn&& fn) const {
    finalized_.for_each_row(lo_cell, hi_cell, fn);
    for_each_pending_row(lo_cell, hi_cell, pending_from, fn);
  }
  // Calls fn(const KernelRow&) for each name of the pending cells that fall
  // in [lo_cell, hi_cell) (a pending cell before `pending_from` counts there).
  template <class Fn>
  void for_each_pending_row(std::int64_t lo_cell, std::int64_t hi_cell, std::int64_t pending_from,
                            Fn&& fn) const {
    pending_.for_each(hi_cell, [&](std::int64_t at, const Names& names) {
      const std::int64_t cell = std::max(at, pending_from);
      if (cell < lo_cell || cell >= hi_cell) return;
      for (const auto& [name, sums] : names)
        fn(KernelRow{name, sums, false});
    });
  }

  bool empty() const { return finalized_.empty() && pending_.empty(); }
  std::size_t pending() const;
  std::size_t finalized_rows() const;
  std::size_t bytes() const;

 private:
  using Names = std::unordered_map<NameId, KernelSums>;

  std::int64_t res_;
  std::size_t per_cell_;
  PendingByCell<Names> pending_;
  CellRows<KernelRow> finalized_;
  std::vector<RunningKernels> windows_;
};

}  // namespace stallwatch::collector::detail
