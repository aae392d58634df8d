// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/name_table.h"
#include "engine/snapshot.h"
#include "kernel_tracker.h"

namespace stallwatch::collector::detail {

// One window's top kernels of one rank (docs/api.md, "Top kernels by device
// time"): the window's rows summed per name, the kTopKernelsShown names with
// the most device time (ties: by name) listed and the rest, with the cells'
// "other" rows, summed in `other`. window_ns is left to the caller.

// From scratch: merges the rows of the cells [lo_cell, hi_cell) by name, at
// the cost of every row of the window (the reference the running sums must
// match).
TopKernels merge_top_kernels(const KernelTracker& kernels, std::int64_t lo_cell,
                             std::int64_t hi_cell, std::int64_t pending_from,
                             const NameTable& names);

// From the running sums of the tracker's window `index` moved to end at
// `end_cell`, with the pending cells' names laid over them for the read and
// taken off again: the cost of the cells that entered or left, the pending
// names and one pass over the window's names. Where the running sums do not
// apply (KernelTracker::running()) it merges from scratch.
TopKernels running_top_kernels(KernelTracker& kernels, std::size_t index, std::int64_t end_cell,
                               std::int64_t pending_from, const NameTable& names);

}  // namespace stallwatch::collector::detail
