// SPDX-License-Identifier: MIT
#include "kernel_tracker.h"

#include <limits>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

void KernelTracker::add(std::int64_t end_ns, NameId name, std::int64_t duration_ns) {
  KernelSums& s = pending_.at(floor_div(end_ns, res_))[name];
  s.device_ns += std::max<std::int64_t>(duration_ns, 0);
  s.count += 1;
}

void KernelTracker::finalize(std::int64_t from_cell, std::int64_t until_cell,
                             std::int64_t keep_from) {
  // Cells before from_cell all become from_cell: merged by name first.
  Names merged;
  std::int64_t current = 0;
  bool any = false;
  const auto flush = [&] {
    if (!any) return;
    any = false;
    if (current < keep_from) {
      merged.clear();
      return;
    }
    std::vector<KernelRow> rows;
    rows.reserve(merged.size());
    for (const auto& [name, sums] : merged)
      rows.push_back(KernelRow{name, sums, false});
    merged.clear();
    std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
      return a.sums.device_ns != b.sums.device_ns ? a.sums.device_ns > b.sums.device_ns
                                                  : a.name < b.name;
    });
    if (rows.size() > per_cell_) {
      KernelRow other;
      other.other = true;
      for (std::size_t i = per_cell_; i < rows.size(); ++i)
        other.sums.add(rows[i].sums);
      rows.resize(per_cell_);
      rows.push_back(other);
    }
    rows.shrink_to_fit();
    // Cells come in order, each once: every finalized cell is before from_cell.
    finalized_.emplace_back(current, std::move(rows));
  };
  pending_.take_before(until_cell, [&](std::int64_t at, Names& names) {
    const std::int64_t cell = std::max(at, from_cell);
    if (any && cell != current) flush();
    current = cell;
    any = true;
    if (merged.empty()) {
      merged = std::move(names);
    } else {
      for (const auto& [name, sums] : names)
        merged[name].add(sums);
    }
  });
  flush();
}

void KernelTracker::trim(std::int64_t first_cell) {
  while (!finalized_.empty() && finalized_.front().first < first_cell)
    finalized_.pop_front();
}

std::size_t KernelTracker::pending() const {
  std::size_t n = 0;
  pending_.for_each(std::numeric_limits<std::int64_t>::max(),
                    [&](std::int64_t, const Names& names) { n += names.size(); });
  return n;
}

std::size_t KernelTracker::finalized_rows() const {
  std::size_t n = 0;
  for (const auto& cell : finalized_)
    n += cell.second.size();
  return n;
}

std::size_t KernelTracker::bytes() const {
  // A hash node holds its value and a pointer; each bucket is a pointer.
  std::size_t n = pending_.bytes();
  pending_.for_each(std::numeric_limits<std::int64_t>::max(), [&](std::int64_t, const Names& m) {
    n += m.size() * (sizeof(Names::value_type) + sizeof(void*)) + m.bucket_count() * sizeof(void*);
  });
  for (const auto& cell : finalized_)
    n += sizeof(cell) + cell.second.capacity() * sizeof(KernelRow);
  return n;
}

}  // namespace stallwatch::collector::detail
