// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

#include "engine/name_table.h"
#include "engine/snapshot.h"
#include "kernel_tracker.h"

namespace stallwatch::collector::detail {

// A rank's top kernels for each window of its KernelTracker (in the
// tracker's order), the windows ending at cell `end_cell` (docs/api.md, "Top
// kernels by device time"): each window's rows summed per name, the
// kTopKernelsShown names with the most device time (ties: by name) listed,
// the rest and the cells' "other" rows summed in `other`. Pending cells
// before `pending_from` (the history's end) count there.

// From scratch: merges the rows of every window's cells by name, at the cost
// of every row of the windows (the reference the running sums must match).
std::vector<TopKernels> merge_top_kernels(const KernelTracker& kernels, std::int64_t end_cell,
                                          std::int64_t pending_from, const NameTable& names);

// From the tracker's running window sums, moved to end at `end_cell`, with
// the pending cells' names (merged once for all windows) laid over each for
// the read and taken off again: the cost of the cells that entered or left,
// the pending names and one pass over each window's names. A window where
// the running sums do not apply (KernelTracker::running()) is merged from
// scratch.
std::vector<TopKernels> running_top_kernels(KernelTracker& kernels, std::int64_t end_cell,
                                            std::int64_t pending_from, const NameTable& names);

}  // namespace stallwatch::collector::detail
