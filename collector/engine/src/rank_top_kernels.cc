// SPDX-License-Identifier: MIT
#include "rank_tracker.h"
#include "top_kernels.h"

namespace stallwatch::collector::detail {

// From the kernels' running window sums (top_kernels.h): the kernels'
// windows are the configured ones, in the same order.
std::vector<TopKernels> RankTracker::top_kernels(std::int64_t t_ns, const NameTable& names) {
  return running_top_kernels(kernels_, cell_of(t_ns), windows_.history().cell_end, names);
}

}  // namespace stallwatch::collector::detail
