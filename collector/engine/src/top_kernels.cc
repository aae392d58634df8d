// SPDX-License-Identifier: MIT
#include "top_kernels.h"

#include <algorithm>
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

}  // namespace

TopKernels merge_top_kernels(const KernelTracker& kernels, std::int64_t lo_cell,
                             std::int64_t hi_cell, std::int64_t pending_from,
                             const NameTable& names) {
  TopKernels top;
  std::unordered_map<NameId, KernelSums> by_name;
  KernelSums other;
  kernels.for_each_row(lo_cell, hi_cell, pending_from, [&](const KernelRow& row) {
    if (row.other) {
      other.add(row.sums);
    } else {
      by_name[row.name].add(row.sums);
    }
  });
  std::vector<Named> sorted;
  sorted.reserve(by_name.size());
  for (const auto& [name, sums] : by_name)
    sorted.emplace_back(names.str(name), sums);
  std::sort(sorted.begin(), sorted.end(), by_device_time);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i < TopKernels::kTopKernelsShown) {
      top.kernels.push_back(entry(sorted[i].first, sorted[i].second));
    } else {
      other.add(sorted[i].second);
    }
  }
  top.other = entry("", other);
  return top;
}

TopKernels running_top_kernels(KernelTracker& kernels, std::size_t index, std::int64_t end_cell,
                               std::int64_t pending_from, const NameTable& names) {
  RunningKernels* run = kernels.running(index, end_cell);
  const std::int64_t lo_cell = end_cell - kernels.window_cells(index);
  if (run == nullptr) return merge_top_kernels(kernels, lo_cell, end_cell, pending_from, names);
  kernels.for_each_pending_row(lo_cell, end_cell, pending_from,
                               [&](const KernelRow& row) { run->add(row); });
  std::vector<Named> all;
  all.reserve(run->size());
  run->for_each([&](NameId name, const KernelSums& s) { all.emplace_back(names.str(name), s); });
  const std::size_t shown = std::min(all.size(), TopKernels::kTopKernelsShown);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shown), all.end(),
                    by_device_time);
  TopKernels top;
  KernelSums other = run->total();
  for (std::size_t i = 0; i < shown; ++i) {
    top.kernels.push_back(entry(all[i].first, all[i].second));
    other.sub(all[i].second);
  }
  top.other = entry("", other);
  kernels.for_each_pending_row(lo_cell, end_cell, pending_from,
                               [&](const KernelRow& row) { run->sub(row); });
  return top;
}

}  // namespace stallwatch::collector::detail
