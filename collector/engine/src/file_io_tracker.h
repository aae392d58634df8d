// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "cell_rows.h"
#include "io_volume_tracker.h"
#include "running_rows.h"

namespace stallwatch::collector::detail {

// The calls of one file, summed.
struct FileIoSums {
  std::int64_t io_ns = 0;
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  std::int64_t ops = 0;

  void add(const FileIoSums& s) {
    io_ns += s.io_ns;
    read_bytes += s.read_bytes;
    write_bytes += s.write_bytes;
    ops += s.ops;
  }
  void sub(const FileIoSums& s) {
    io_ns -= s.io_ns;
    read_bytes -= s.read_bytes;
    write_bytes -= s.write_bytes;
    ops -= s.ops;
  }
  bool none() const { return ops == 0; }
};

// A file as its calls name it: the rank's source index and the agent's file
// id (the value of the source's posix_file marks).
struct FileKey {
  std::uint16_t source = 0;
  std::uint32_t file = 0;
  auto operator<=>(const FileKey&) const = default;
};

struct FileKeyHash {
  std::size_t operator()(FileKey k) const {
    return std::hash<std::uint64_t>{}(std::uint64_t{k.source} << 32 | k.file);
  }
};

struct FileIoRow {
  FileKey key;
  FileIoSums sums;
  bool other = false;  // the cell's files past its top, summed (key unused)
};

inline FileKey row_key(const FileIoRow& r) {
  return r.key;
}

using RunningFiles = RunningRows<FileIoRow, FileKey, FileIoSums, FileKeyHash>;

// The I/O calls of one rank per file, per resolution cell of the call's end
// (docs/api.md, "Top files by I/O time"). EventWalk decides which calls count
// (the same rule as their bytes: on time, not before the rank's start); this
// only sums. Until WindowFinalizer finalizes a cell, it holds exact sums for
// every file of the cell; a finalized cell keeps its `per_cell` files with
// the most I/O time (ties: lower source index, then lower file id) and one
// "other" row with the rest. Files are resolved to paths by the reader, not
// here, so a name that arrives after its calls still counts.
//
// Every finalized cell's exact sums also go to the rank's totals: one row
// per file for the first `total_files` files finalized (in the order of
// their cells, then source index, then file id), exact since the rank's
// start; the calls of later files are summed in one "other" row.
//
// For each window of `window_cells` it also keeps the running sums by file
// of the finalized cells in the window (RunningRows), so that a tick reads
// the window's files without re-merging its cells' rows.
//
// Memory: the pending cells (the lateness) hold one entry per file and cell;
// the finalized ones at most per_cell + 1 rows for each cell of the history
// that had a call (trim()); the totals at most total_files + 1 rows; each
// window one entry per file of its finalized cells.
//
// Single-threaded; owned by one RankTracker.
class FileIoTracker {
 public:
  FileIoTracker(std::int64_t resolution_ns, std::size_t per_cell, std::size_t total_files,
                const std::vector<std::int64_t>& window_cells = {});

  // A call on `key` that ended at `end_ns` after `duration_ns`, moving
  // `bytes` (negative: none) in `direction`.
  void add(std::int64_t end_ns, FileKey key, std::int64_t duration_ns, IoDirection direction,
           std::int64_t bytes);
  // Finalizes the pending cells before `until_cell`: a cell before `from_cell`
  // counts as `from_cell` (as the I/O volume does); cells before `keep_from`
  // are outside every window and dropped.
  void finalize(std::int64_t from_cell, std::int64_t until_cell, std::int64_t keep_from);
  // Forgets finalized cells before `first_cell` (the history's first).
  void trim(std::int64_t first_cell);

  // The running sums of window `index` (the order of the constructor's
  // `window_cells`) moved to the cells [end_cell - its cells, end_cell), or
  // null when a finalized cell is at or after `end_cell` (a window end that
  // moved back before the horizon): the caller then merges the rows.
  RunningFiles* running(std::size_t index, std::int64_t end_cell);
  std::size_t windows() const { return windows_.size(); }
  std::int64_t window_cells(std::size_t index) const { return windows_[index].window_cells(); }
  std::int64_t resolution_ns() const { return res_; }

  // Calls fn(const FileIoRow&) for each row of the cells [lo_cell, hi_cell):
  // finalized cells' rows, then the pending cells' files (a pending cell
  // before `pending_from` counts there).
  template <class Fn>
  void for_each_row(std::int64_t lo_cell, std::int64_t hi_cell, std::int64_t pending_from,
                    Fn&& fn) const {
    finalized_.for_each_row(lo_cell, hi_cell, fn);
    for_each_pending_row(lo_cell, hi_cell, pending_from, fn);
  }
  // Calls fn(const FileIoRow&) for each file of the pending cells that fall
  // in [lo_cell, hi_cell) (a pending cell before `pending_from` counts there).
  template <class Fn>
  void for_each_pending_row(std::int64_t lo_cell, std::int64_t hi_cell, std::int64_t pending_from,
                            Fn&& fn) const {
    for (const auto& [key, sums] : pending_) {
      const std::int64_t cell = std::max(std::get<0>(key), pending_from);
      if (cell >= hi_cell) break;
      if (cell < lo_cell) continue;
      fn(FileIoRow{FileKey{std::get<1>(key), std::get<2>(key)}, sums, false});
    }
  }

  // Calls fn(const FileIoRow&) for each row of the totals up to `hi_cell`:
  // the finalized files, their "other" row (when it holds calls), then the
  // pending cells' files before `hi_cell`.
  template <class Fn>
  void for_each_total_row(std::int64_t hi_cell, Fn&& fn) const {
    for (const auto& [key, sums] : totals_)
      fn(FileIoRow{key, sums, false});
    if (totals_other_.ops > 0) fn(FileIoRow{FileKey{}, totals_other_, true});
    for (const auto& [key, sums] : pending_) {
      if (std::get<0>(key) >= hi_cell) break;
      fn(FileIoRow{FileKey{std::get<1>(key), std::get<2>(key)}, sums, false});
    }
  }

  bool empty() const { return finalized_.empty() && pending_.empty() && totals_.empty(); }
  std::size_t pending() const { return pending_.size(); }
  std::size_t finalized_rows() const { return finalized_.rows(); }
  std::size_t total_rows() const { return totals_.size() + (totals_other_.ops > 0 ? 1 : 0); }
  std::size_t bytes() const;

 private:
  void add_to_totals(FileKey key, const FileIoSums& sums);

  std::int64_t res_;
  std::size_t per_cell_;
  std::size_t total_files_;
  std::map<std::tuple<std::int64_t, std::uint16_t, std::uint32_t>, FileIoSums> pending_;
  CellRows<FileIoRow> finalized_;
  std::vector<RunningFiles> windows_;
  std::map<FileKey, FileIoSums> totals_;  // at most total_files_
  FileIoSums totals_other_;
};

}  // namespace stallwatch::collector::detail
