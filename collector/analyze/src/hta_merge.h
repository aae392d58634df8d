// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

namespace stallwatch::collector {

struct HtaSpan {
  std::int64_t ts = 0;
  std::int64_t end = 0;
};

// HTA's merge_kernel_intervals: sort by start; a row opens a new group when it
// starts after every earlier end; a group spans its first start to its
// largest end (negative-length rows included, as HTA keeps them). The groups
// come out sorted by start.
std::vector<HtaSpan> hta_merge(std::vector<HtaSpan> rows);

// Sum of end - ts over merged groups.
std::int64_t hta_merged_time(const std::vector<HtaSpan>& groups);

}  // namespace stallwatch::collector
