// SPDX-License-Identifier: MIT
#include "top_kernels.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

using Named = std::pair<std::string_view, KernelSums>;

KernelEntry entry(std::string_view name, const KernelSums& s) {
  return KernelEntry{std::string(name), s.device_ns, s.count};
}

bool by_device_time(const Named& a, const Named& b) {
  return a.second.device_ns != b.second.device_ns ? a.second.device_ns > b.second.device_ns
                                                  : a.first < b.first;
}

// The top `shown` of `named` listed, the rest added to `other`.
TopKernels pick(std::vector<Named>& named, KernelSums other) {
  TopKernels top;
  split_top(named, TopKernels::kTopKernelsShown, by_device_time, entry, top.kernels, other);
  top.other = entry("", other);
  return top;
}

// The names of the pending cells that count in [lo_cell, hi_cell), merged:
// one row per name.
std::vector<KernelRow> pending_rows(const KernelTracker& kernels, std::int64_t lo_cell,
                                    std::int64_t hi_cell, std::int64_t pending_from) {
  std::vector<KernelRow> rows;
  kernels.for_each_pending_row(lo_cell, hi_cell, pending_from,
                               [&](const KernelRow& row) { rows.push_back(row); });
  merge_rows_by_key(rows);
  return rows;
}

TopKernels merge_window(const KernelTracker& kernels, std::int64_t lo_cell, std::int64_t hi_cell,
                        std::int64_t pending_from, const NameTable& names) {
  std::unordered_map<NameId, KernelSums> by_name;
  KernelSums other;
  kernels.for_each_row(lo_cell, hi_cell, pending_from, [&](const KernelRow& row) {
    if (row.other) {
      other.add(row.sums);
    } else {
      by_name[row.name].add(row.sums);
    }
  });
  std::vector<Named> named;
  named.reserve(by_name.size());
  for (const auto& [name, sums] : by_name)
    named.emplace_back(names.str(name), sums);
  return pick(named, other);
}

}  // namespace

std::vector<TopKernels> merge_top_kernels(const KernelTracker& kernels, std::int64_t end_cell,
                                          std::int64_t pending_from, const NameTable& names) {
  std::vector<TopKernels> out;
  out.reserve(kernels.windows());
  for (std::size_t i = 0; i < kernels.windows(); ++i) {
    const std::int64_t cells = kernels.window_cells(i);
    out.push_back(merge_window(kernels, end_cell - cells, end_cell, pending_from, names));
    out.back().window_ns = cells * kernels.resolution_ns();
  }
  return out;
}

std::vector<TopKernels> running_top_kernels(KernelTracker& kernels, std::int64_t end_cell,
                                            std::int64_t pending_from, const NameTable& names) {
  std::vector<TopKernels> out;
  out.reserve(kernels.windows());
  // Every pending cell counts at or after pending_from: a window that starts
  // there or earlier holds all of them before end_cell.
  const std::vector<KernelRow> all_pending =
      pending_rows(kernels, std::numeric_limits<std::int64_t>::min(), end_cell, pending_from);
  std::vector<Named> named;
  for (std::size_t i = 0; i < kernels.windows(); ++i) {
    const std::int64_t cells = kernels.window_cells(i);
    const std::int64_t lo_cell = end_cell - cells;
    RunningKernels* run = kernels.running(i, end_cell);
    if (run == nullptr) {
      out.push_back(merge_window(kernels, lo_cell, end_cell, pending_from, names));
    } else {
      const std::vector<KernelRow> own =
          lo_cell <= pending_from ? std::vector<KernelRow>{}
                                  : pending_rows(kernels, lo_cell, end_cell, pending_from);
      const std::vector<KernelRow>& pending = lo_cell <= pending_from ? all_pending : own;
      named.clear();
      named.reserve(run->size() + pending.size());
      run->for_each_with(pending, [&](NameId name, const KernelSums& s) {
        named.emplace_back(names.str(name), s);
      });
      out.push_back(pick(named, run->other()));
    }
    out.back().window_ns = cells * kernels.resolution_ns();
  }
  return out;
}

}  // namespace stallwatch::collector::detail
