// SPDX-License-Identifier: MIT
#include <algorithm>
#include <unordered_map>

#include "rank_tracker.h"

namespace stallwatch::collector::detail {
namespace {

KernelEntry entry(std::string_view name, const KernelSums& s) {
  return KernelEntry{std::string(name), s.device_ns, s.count};
}

}  // namespace

// Each configured window's rows (finalized cells: their top names and an
// "other" row; pending cells: every name) are summed per name. The
// kTopKernelsShown names with the most device time (ties: by name) are
// listed, the rest go to `other`.
std::vector<TopKernels> RankTracker::top_kernels(std::int64_t t_ns, const NameTable& names) const {
  std::vector<TopKernels> out;
  const std::int64_t kt = cell_of(t_ns);
  const std::int64_t pending_from = windows_.history().cell_end;
  for (const auto& w : windows_.windows()) {
    if (w.is_totals()) continue;
    TopKernels top;
    top.window_ns = w.window_cells() * res_;
    std::unordered_map<NameId, KernelSums> by_name;
    KernelSums other;
    if (!kernels_.empty()) {
      kernels_.for_each_row(kt - w.window_cells(), kt, pending_from, [&](const KernelRow& row) {
        if (row.other) {
          other.add(row.sums);
        } else {
          by_name[row.name].add(row.sums);
        }
      });
    }
    std::vector<std::pair<std::string_view, KernelSums>> sorted;
    sorted.reserve(by_name.size());
    for (const auto& [name, sums] : by_name)
      sorted.emplace_back(names.str(name), sums);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second.device_ns != b.second.device_ns ? a.second.device_ns > b.second.device_ns
                                                      : a.first < b.first;
    });
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i < TopKernels::kTopKernelsShown) {
        top.kernels.push_back(entry(sorted[i].first, sorted[i].second));
      } else {
        other.add(sorted[i].second);
      }
    }
    top.other = entry("", other);
    out.push_back(std::move(top));
  }
  return out;
}

}  // namespace stallwatch::collector::detail
