// SPDX-License-Identifier: MIT
#include "hta_kernel_breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "hta_merge.h"
#include "pandas_order.h"

// HTA's get_gpu_kernel_breakdown (breakdown_analysis.py), restated:
//  - per rank, each analysed type's kernels are merged (hta_merge); the
//    merged starts and then ends of each type, +bit and -bit (computation 1,
//    communication 2, memory 4), are appended to a status list that is
//    sorted by time after each type (numpy's unstable quicksort, whose order
//    decides which zero-length labels appear); the running sum of bits
//    labels each step ("A overlapping B" in that type order) and steps with a
//    non-zero sum add their length to their label;
//  - labels are summed over ranks and sorted by time, descending;
//  - per rank and type, kernels are grouped by name (sum, max, min, mean,
//    std of durations) and sorted by sum, descending; past `num_kernels`
//    names, those beyond the top `num_kernels` or whose running sum exceeds
//    the `duration_ratio` quantile of the running sums become "others", and
//    the names are regrouped over their sums.

namespace stallwatch::collector {

namespace {

struct Group {
  double sum = 0;
  double max = 0;
  double min = 0;
  double mean = 0;
  double std = 0;
};

Group aggregate(const std::vector<double>& values) {
  Group g;
  g.sum = std::accumulate(values.begin(), values.end(), 0.0);
  g.max = *std::max_element(values.begin(), values.end());
  g.min = *std::min_element(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  g.mean = g.sum / n;
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values)
      squares += (v - g.mean) * (v - g.mean);
    g.std = std::sqrt(squares / (n - 1));
  }
  return g;
}

std::string overlap_label(int running, const std::vector<HtaKernelType>& types) {
  std::string label;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if ((running & (1 << i)) == 0) continue;
    if (!label.empty()) label += " overlapping ";
    label += hta_kernel_type_name(types[i]);
  }
  return label;
}

void add_type_times(const HtaRankTrace& rank, const std::vector<HtaKernelType>& types,
                    std::map<std::string, std::int64_t>& sums) {
  std::vector<std::int64_t> times;
  std::vector<int> status;
  for (std::size_t i = 0; i < types.size(); ++i) {
    std::vector<HtaSpan> spans;
    for (const HtaGpuRow& g : rank.gpu) {
      if (g.type == types[i]) spans.push_back({g.ts / 1000, g.end / 1000});
    }
    const std::vector<HtaSpan> merged = hta_merge(std::move(spans));
    const int bit = 1 << i;
    for (const HtaSpan& s : merged) {
      times.push_back(s.ts);
      status.push_back(bit);
    }
    for (const HtaSpan& s : merged) {
      times.push_back(s.end);
      status.push_back(-bit);
    }
    const std::vector<std::uint32_t> order = argsort_quick(std::span<const std::int64_t>(times));
    std::vector<std::int64_t> sorted_times(times.size());
    std::vector<int> sorted_status(status.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      sorted_times[k] = times[order[k]];
      sorted_status[k] = status[order[k]];
    }
    times = std::move(sorted_times);
    status = std::move(sorted_status);
  }
  int running = 0;
  for (std::size_t k = 0; k < times.size(); ++k) {
    running += status[k];
    if (running <= 0 || k + 1 == times.size()) continue;
    sums[overlap_label(running, types)] += times[k + 1] - times[k];
  }
}

void add_kernel_table(const HtaRankTrace& rank, HtaKernelType type,
                      const HtaKernelBreakdownOptions& options, std::vector<HtaKernelStat>& out) {
  std::map<std::string, std::vector<double>> durations;
  for (const HtaGpuRow& g : rank.gpu) {
    if (g.type == type)
      durations[rank.names[g.name]].push_back(static_cast<double>((g.end - g.ts) / 1000));
  }
  std::vector<std::string> names;
  std::vector<Group> groups;
  std::vector<std::int64_t> sums;
  for (const auto& [name, values] : durations) {
    names.push_back(name);
    groups.push_back(aggregate(values));
    sums.push_back(static_cast<std::int64_t>(groups.back().sum));
  }
  auto emit = [&](const std::string& name, const Group& g) {
    out.push_back({name, g.sum, g.max, g.min, g.std, g.mean,
                   std::string(hta_kernel_type_name(type)), rank.rank});
  };
  if (names.size() <= options.num_kernels) {
    for (std::size_t i = 0; i < names.size(); ++i)
      emit(names[i], groups[i]);
    return;
  }
  const std::vector<std::uint32_t> order = argsort_quick_descending(sums);
  std::vector<double> cumsum(order.size());
  double running = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    running += groups[order[k]].sum;
    cumsum[k] = running;
  }
  std::vector<double> sorted_cumsum = cumsum;
  std::sort(sorted_cumsum.begin(), sorted_cumsum.end());
  const double quantile = percentile_linear(sorted_cumsum, options.duration_ratio);
  std::map<std::string, std::vector<double>> regrouped;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool other = cumsum[k] > quantile || k >= options.num_kernels;
    regrouped[other ? std::string("others") : names[order[k]]].push_back(groups[order[k]].sum);
  }
  for (const auto& [name, values] : regrouped)
    emit(name, aggregate(values));
}

}  // namespace

HtaKernelBreakdown hta_kernel_breakdown(const HtaTrace& trace,
                                        const HtaKernelBreakdownOptions& options) {
  std::vector<HtaKernelType> types = {HtaKernelType::kComputation, HtaKernelType::kCommunication};
  if (options.include_memory_kernels) types.push_back(HtaKernelType::kMemory);

  HtaKernelBreakdown out;
  std::map<std::string, std::int64_t> sums;
  for (const HtaRankTrace& rank : trace.ranks) {
    add_type_times(rank, types, sums);
    for (HtaKernelType type : types)
      add_kernel_table(rank, type, options, out.kernels);
  }

  std::vector<std::string> labels;
  std::vector<std::int64_t> label_sums;
  std::int64_t total = 0;
  for (const auto& [label, sum] : sums) {
    labels.push_back(label);
    label_sums.push_back(sum);
    total += sum;
  }
  for (std::uint32_t i : argsort_quick_descending(label_sums)) {
    const double share = static_cast<double>(label_sums[i]) / static_cast<double>(total) * 100;
    out.types.push_back({labels[i], label_sums[i], std::nearbyint(share * 10) / 10});
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const HtaKernelStat& a, const HtaKernelStat& b) {
                     if (a.kernel_type != b.kernel_type) return a.kernel_type < b.kernel_type;
                     if (a.name != b.name) return a.name < b.name;
                     return a.rank < b.rank;
                   });
  return out;
}

}  // namespace stallwatch::collector
