// SPDX-License-Identifier: MIT
#include "file_io_tracker.h"

#include <algorithm>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

FileIoTracker::FileIoTracker(std::int64_t resolution_ns, std::size_t per_cell,
                             std::size_t total_files, const std::vector<std::int64_t>& window_cells)
    : res_(resolution_ns), per_cell_(per_cell), total_files_(total_files) {
  windows_.reserve(window_cells.size());
  for (std::int64_t cells : window_cells)
    windows_.emplace_back(cells);
}

void FileIoTracker::add(std::int64_t end_ns, FileKey key, std::int64_t duration_ns,
                        IoDirection direction, std::int64_t bytes) {
  FileIoSums& s = pending_[{floor_div(end_ns, res_), key.source, key.file}];
  s.io_ns += std::max<std::int64_t>(duration_ns, 0);
  s.ops += 1;
  const std::int64_t moved = std::max<std::int64_t>(bytes, 0);
  if (direction == IoDirection::kRead) s.read_bytes += moved;
  if (direction == IoDirection::kWrite) s.write_bytes += moved;
}

void FileIoTracker::finalize(std::int64_t from_cell, std::int64_t until_cell,
                             std::int64_t keep_from) {
  std::vector<FileIoRow> rows;
  std::int64_t current = 0;
  const auto flush = [&] {
    if (rows.empty()) return;
    keep_top_rows(rows, per_cell_, [](const FileIoRow& a, const FileIoRow& b) {
      return a.sums.io_ns != b.sums.io_ns ? a.sums.io_ns > b.sums.io_ns : a.key < b.key;
    });
    // Cells come in order, each once: every finalized cell is before from_cell.
    if (current >= keep_from) {
      for (RunningFiles& w : windows_)
        w.on_cell(current, rows);
      finalized_.push(current, std::move(rows));
    }
    rows.clear();
  };
  auto it = pending_.begin();
  for (; it != pending_.end() && std::get<0>(it->first) < until_cell; ++it) {
    const std::int64_t cell = std::max(std::get<0>(it->first), from_cell);
    if (cell != current) {
      flush();
      current = cell;
    }
    const FileKey key{std::get<1>(it->first), std::get<2>(it->first)};
    rows.push_back(FileIoRow{key, it->second});
    add_to_totals(key, it->second);
  }
  flush();
  pending_.erase(pending_.begin(), it);
}

void FileIoTracker::add_to_totals(FileKey key, const FileIoSums& sums) {
  if (auto found = totals_.find(key); found != totals_.end()) {
    found->second.add(sums);
  } else if (totals_.size() < total_files_) {
    totals_.emplace(key, sums);
  } else {
    totals_other_.add(sums);
  }
}

void FileIoTracker::trim(std::int64_t first_cell) {
  detail::trim_cells(finalized_, windows_, first_cell);
}

RunningFiles* FileIoTracker::running(std::size_t index, std::int64_t end_cell) {
  return detail::running_window(finalized_, windows_, index, end_cell);
}

std::size_t FileIoTracker::bytes() const {
  // A map node holds its key, value and three pointers and a color.
  std::size_t n = pending_.size() * (sizeof(*pending_.begin()) + 4 * sizeof(void*));
  n += finalized_.bytes() + windows_.capacity() * sizeof(RunningFiles);
  for (const RunningFiles& w : windows_)
    n += w.bytes();
  n += totals_.size() * (sizeof(*totals_.begin()) + 4 * sizeof(void*));
  return n;
}

}  // namespace stallwatch::collector::detail
