// SPDX-License-Identifier: MIT
#include "top_files.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

namespace stallwatch::collector::detail {
namespace {

using ByPath = std::map<std::string_view, FileIoSums>;

FileIoEntry entry(std::string_view path, const FileIoSums& s) {
  return FileIoEntry{std::string(path), s.io_ns, s.read_bytes, s.write_bytes, s.ops};
}

bool by_io_time(const std::pair<std::string_view, FileIoSums>& a,
                const std::pair<std::string_view, FileIoSums>& b) {
  return a.second.io_ns != b.second.io_ns ? a.second.io_ns > b.second.io_ns : a.first < b.first;
}

// The `shown` paths of (path, sums) pairs, one per path, with the most time
// listed (ties: by path), the rest added to `other`.
TopFiles pick(std::vector<std::pair<std::string_view, FileIoSums>>& named, FileIoSums other,
              std::size_t shown) {
  TopFiles top;
  split_top(named, shown, by_io_time, entry, top.files, other);
  top.other = entry("", other);
  return top;
}

TopFiles pick(const ByPath& by_path, FileIoSums other, std::size_t shown) {
  std::vector<std::pair<std::string_view, FileIoSums>> named(by_path.begin(), by_path.end());
  return pick(named, other, shown);
}

// The same from (path, sums) pairs, several per path, without a tree: sorted
// by path and merged, then the top `shown` picked.
TopFiles pick_merging(std::vector<std::pair<std::string_view, FileIoSums>>& named, FileIoSums other,
                      std::size_t shown) {
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t n = 0;
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (n > 0 && named[n - 1].first == named[i].first) {
      named[n - 1].second.add(named[i].second);
    } else {
      named[n++] = named[i];
    }
  }
  named.resize(n);
  return pick(named, other, shown);
}

// Rows summed by path, "other" rows into `other`.
struct PathSums {
  const FilePathOf& path_of;
  ByPath by_path;
  FileIoSums other;
  void operator()(const FileIoRow& row) {
    if (row.other) {
      other.add(row.sums);
    } else {
      by_path[path_of(row.key)].add(row.sums);
    }
  }
};

TopFiles merge_window(const FileIoTracker& files, std::int64_t lo_cell, std::int64_t hi_cell,
                      std::int64_t pending_from, const FilePathOf& path_of, std::size_t shown) {
  PathSums sums{path_of, {}, {}};
  files.for_each_row(lo_cell, hi_cell, pending_from, [&](const FileIoRow& row) { sums(row); });
  return pick(sums.by_path, sums.other, shown);
}

// The files of the pending cells that count in [lo_cell, hi_cell), merged:
// one row per file.
std::vector<FileIoRow> pending_rows(const FileIoTracker& files, std::int64_t lo_cell,
                                    std::int64_t hi_cell, std::int64_t pending_from) {
  std::vector<FileIoRow> rows;
  files.for_each_pending_row(lo_cell, hi_cell, pending_from,
                             [&](const FileIoRow& row) { rows.push_back(row); });
  merge_rows_by_key(rows);
  return rows;
}

}  // namespace

std::vector<TopFiles> merge_top_files(const FileIoTracker& files, std::int64_t end_cell,
                                      std::int64_t pending_from, const FilePathOf& path_of,
                                      std::size_t shown) {
  std::vector<TopFiles> out;
  out.reserve(files.windows());
  for (std::size_t i = 0; i < files.windows(); ++i) {
    const std::int64_t cells = files.window_cells(i);
    out.push_back(merge_window(files, end_cell - cells, end_cell, pending_from, path_of, shown));
    out.back().window_ns = cells * files.resolution_ns();
  }
  return out;
}

std::vector<TopFiles> running_top_files(FileIoTracker& files, std::int64_t end_cell,
                                        std::int64_t pending_from, const FilePathOf& path_of,
                                        std::size_t shown) {
  std::vector<TopFiles> out;
  out.reserve(files.windows());
  // Every pending cell counts at or after pending_from: a window that starts
  // there or earlier holds all of them before end_cell.
  const std::vector<FileIoRow> all_pending =
      pending_rows(files, std::numeric_limits<std::int64_t>::min(), end_cell, pending_from);
  std::vector<std::pair<std::string_view, FileIoSums>> named;
  for (std::size_t i = 0; i < files.windows(); ++i) {
    const std::int64_t cells = files.window_cells(i);
    const std::int64_t lo_cell = end_cell - cells;
    RunningFiles* run = files.running(i, end_cell);
    if (run == nullptr) {
      out.push_back(merge_window(files, lo_cell, end_cell, pending_from, path_of, shown));
    } else {
      const std::vector<FileIoRow> own = lo_cell <= pending_from
                                             ? std::vector<FileIoRow>{}
                                             : pending_rows(files, lo_cell, end_cell, pending_from);
      const std::vector<FileIoRow>& pending = lo_cell <= pending_from ? all_pending : own;
      named.clear();
      named.reserve(run->size() + pending.size());
      run->for_each_with(
          pending, [&](FileKey key, const FileIoSums& s) { named.emplace_back(path_of(key), s); });
      out.push_back(pick_merging(named, run->other(), shown));
    }
    out.back().window_ns = cells * files.resolution_ns();
  }
  return out;
}

TopFiles total_top_files(const FileIoTracker& files, std::int64_t end_cell,
                         const FilePathOf& path_of, std::size_t shown) {
  PathSums sums{path_of, {}, {}};
  files.for_each_total_row(end_cell, [&](const FileIoRow& row) { sums(row); });
  TopFiles top = pick(sums.by_path, sums.other, shown);
  top.window_ns = 0;
  return top;
}

}  // namespace stallwatch::collector::detail
