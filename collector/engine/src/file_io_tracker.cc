// SPDX-License-Identifier: MIT
#include "file_io_tracker.h"

#include <algorithm>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

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
    std::sort(rows.begin(), rows.end(), [](const FileIoRow& a, const FileIoRow& b) {
      return a.sums.io_ns != b.sums.io_ns ? a.sums.io_ns > b.sums.io_ns : a.key < b.key;
    });
    if (rows.size() > per_cell_) {
      FileIoRow other;
      other.other = true;
      for (std::size_t i = per_cell_; i < rows.size(); ++i)
        other.sums.add(rows[i].sums);
      rows.resize(per_cell_);
      rows.push_back(other);
    }
    // Cells come in order, each once: every finalized cell is before from_cell.
    if (current >= keep_from) finalized_.emplace_back(current, std::move(rows));
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
  while (!finalized_.empty() && finalized_.front().first < first_cell)
    finalized_.pop_front();
}

std::size_t FileIoTracker::finalized_rows() const {
  std::size_t n = 0;
  for (const auto& cell : finalized_)
    n += cell.second.size();
  return n;
}

std::size_t FileIoTracker::bytes() const {
  // A map node holds its key, value and three pointers and a color.
  std::size_t n = pending_.size() * (sizeof(*pending_.begin()) + 4 * sizeof(void*));
  for (const auto& cell : finalized_)
    n += sizeof(cell) + cell.second.capacity() * sizeof(FileIoRow);
  n += totals_.size() * (sizeof(*totals_.begin()) + 4 * sizeof(void*));
  return n;
}

}  // namespace stallwatch::collector::detail
