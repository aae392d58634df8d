// SPDX-License-Identifier: MIT
#include "kernel_tracker.h"

#include <limits>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

KernelTracker::KernelTracker(std::int64_t resolution_ns, std::size_t per_cell,
                             const std::vector<std::int64_t>& window_cells)
    : res_(resolution_ns), per_cell_(per_cell) {
  windows_.reserve(window_cells.size());
  for (std::int64_t cells : window_cells)
    windows_.emplace_back(cells);
}

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
    keep_top_rows(rows, per_cell_, [](const KernelRow& a, const KernelRow& b) {
      return a.sums.device_ns != b.sums.device_ns ? a.sums.device_ns > b.sums.device_ns
                                                  : a.name < b.name;
    });
    rows.shrink_to_fit();
    for (RunningKernels& w : windows_)
      w.on_cell(current, rows);
    // Cells come in order, each once: every finalized cell is before from_cell.
    finalized_.push(current, std::move(rows));
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
  detail::trim_cells(finalized_, windows_, first_cell);
}

RunningKernels* KernelTracker::running(std::size_t index, std::int64_t end_cell) {
  return detail::running_window(finalized_, windows_, index, end_cell);
}

std::size_t KernelTracker::pending() const {
  std::size_t n = 0;
  pending_.for_each(std::numeric_limits<std::int64_t>::max(),
                    [&](std::int64_t, const Names& names) { n += names.size(); });
  return n;
}

std::size_t KernelTracker::finalized_rows() const {
  return finalized_.rows();
}

std::size_t KernelTracker::bytes() const {
  // A hash node holds its value and a pointer; each bucket is a pointer.
  std::size_t n = pending_.bytes();
  pending_.for_each(std::numeric_limits<std::int64_t>::max(), [&](std::int64_t, const Names& m) {
    n += m.size() * (sizeof(Names::value_type) + sizeof(void*)) + m.bucket_count() * sizeof(void*);
  });
  n += finalized_.bytes() + windows_.capacity() * sizeof(RunningKernels);
  for (const RunningKernels& w : windows_)
    n += w.bytes();
  return n;
}

}  // namespace stallwatch::collector::detail
