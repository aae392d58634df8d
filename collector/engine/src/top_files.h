// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "engine/snapshot.h"
#include "file_io_tracker.h"

namespace stallwatch::collector::detail {

// The path of a file as the rank's sources name it now (a name that arrives
// after the file's calls still counts), read at every tick.
using FilePathOf = std::function<std::string_view(FileKey)>;

// A rank's top files for each window of its FileIoTracker (in the tracker's
// order), the windows ending at cell `end_cell` (docs/api.md, "Top files by
// I/O time"): each window's rows summed per path, the `shown` paths with the
// most time (ties: by path) listed, the rest and the cells' "other" rows
// summed in `other`. Pending cells before `pending_from` (the history's end)
// count there.

// From scratch: merges the rows of every window's cells by path, at the cost
// of every row of the windows (the reference the running sums must match).
std::vector<TopFiles> merge_top_files(const FileIoTracker& files, std::int64_t end_cell,
                                      std::int64_t pending_from, const FilePathOf& path_of,
                                      std::size_t shown);

// From the tracker's running window sums by file, moved to end at
// `end_cell`, with the pending cells' files (merged once for all windows)
// laid over each for the read: the cost of the cells that entered or left,
// the pending files and one pass over each window's files (each resolved to
// its path and merged by path, as paths can change). A window where the
// running sums do not apply (FileIoTracker::running()) is merged from
// scratch.
std::vector<TopFiles> running_top_files(FileIoTracker& files, std::int64_t end_cell,
                                        std::int64_t pending_from, const FilePathOf& path_of,
                                        std::size_t shown);

// The totals since the rank's start (window_ns 0): the tracker's running
// totals and the pending cells before `end_cell`.
TopFiles total_top_files(const FileIoTracker& files, std::int64_t end_cell,
                         const FilePathOf& path_of, std::size_t shown);

}  // namespace stallwatch::collector::detail
