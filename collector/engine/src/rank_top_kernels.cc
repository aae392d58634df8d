// SPDX-License-Identifier: MIT
#include <utility>

#include "rank_tracker.h"
#include "top_kernels.h"

namespace stallwatch::collector::detail {

// Each configured window from the kernels' running sums (top_kernels.h); the
// kernels' windows are the configured ones, in the same order.
std::vector<TopKernels> RankTracker::top_kernels(std::int64_t t_ns, const NameTable& names) {
  std::vector<TopKernels> out;
  const std::int64_t kt = cell_of(t_ns);
  const std::int64_t pending_from = windows_.history().cell_end;
  std::size_t index = 0;
  for (const auto& w : windows_.windows()) {
    if (w.is_totals()) continue;
    TopKernels top = running_top_kernels(kernels_, index++, kt, pending_from, names);
    top.window_ns = w.window_cells() * res_;
    out.push_back(std::move(top));
  }
  return out;
}

}  // namespace stallwatch::collector::detail
