// SPDX-License-Identifier: MIT
#include <algorithm>
#include <map>
#include <string_view>

#include "rank_tracker.h"

namespace stallwatch::collector::detail {
namespace {

constexpr std::string_view kUnknownFile = "<unknown file>";

FileIoEntry entry(std::string_view path, const FileIoSums& s) {
  return FileIoEntry{std::string(path), s.io_ns, s.read_bytes, s.write_bytes, s.ops};
}

}  // namespace

// Each configured window's rows (finalized cells: their top files and an
// "other" row; pending cells: every file), and for the totals the rank's
// running table and the pending cells, are summed per path, a file id
// resolved through its source's names, else through its parent's (a forked
// worker reads what its parent opened); one no source names is
// kUnknownFile. The top_files_shown paths with the most time (ties: by
// path) are listed, the rest go to `other`.
std::vector<TopFiles> RankTracker::top_files(std::int64_t t_ns, const NameTable& names) const {
  std::vector<TopFiles> out;
  const std::int64_t kt = cell_of(t_ns);
  const std::int64_t pending_from = windows_.history().cell_end;
  const auto& sources = sources_.all();
  const auto path_of = [&](FileKey key) -> std::string_view {
    if (key.source >= sources.size()) return kUnknownFile;
    const SourceTracker& src = sources[key.source];
    if (auto it = src.files.find(key.file); it != src.files.end()) return names.str(it->second);
    for (const SourceTracker& parent : sources) {
      if (parent.info.pid != src.info.ppid || parent.info.host != src.info.host) continue;
      if (auto it = parent.files.find(key.file); it != parent.files.end())
        return names.str(it->second);
    }
    return kUnknownFile;
  };
  for (const auto& w : windows_.windows()) {
    TopFiles top;
    top.window_ns = w.is_totals() ? 0 : w.window_cells() * res_;
    std::map<std::string_view, FileIoSums> by_path;
    FileIoSums other;
    const auto add = [&](const FileIoRow& row) {
      if (row.other) {
        other.add(row.sums);
      } else {
        by_path[path_of(row.key)].add(row.sums);
      }
    };
    if (w.is_totals()) {
      files_.for_each_total_row(kt, add);
    } else {
      files_.for_each_row(kt - w.window_cells(), kt, pending_from, add);
    }
    std::vector<std::pair<std::string_view, FileIoSums>> sorted(by_path.begin(), by_path.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.io_ns > b.second.io_ns; });
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i < config_.top_files_shown) {
        top.files.push_back(entry(sorted[i].first, sorted[i].second));
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
