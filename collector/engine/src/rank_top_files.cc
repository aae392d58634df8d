// SPDX-License-Identifier: MIT
#include <string_view>

#include "rank_tracker.h"
#include "top_files.h"

namespace stallwatch::collector::detail {
namespace {

constexpr std::string_view kUnknownFile = "<unknown file>";

}  // namespace

// The configured windows from the files' running window sums and the totals
// from the files' running table (top_files.h); the files' windows are the
// configured ones, in the same order, and the totals come last. A file id is
// resolved through its source's names, else through its parent's (a forked
// worker reads what its parent opened); one no source names is
// kUnknownFile.
std::vector<TopFiles> RankTracker::top_files(std::int64_t t_ns, const NameTable& names) {
  const std::int64_t kt = cell_of(t_ns);
  const auto& sources = sources_.all();
  const FilePathOf path_of = [&](FileKey key) -> std::string_view {
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
  std::vector<TopFiles> out =
      running_top_files(files_, kt, windows_.history().cell_end, path_of, config_.top_files_shown);
  out.push_back(total_top_files(files_, kt, path_of, config_.top_files_shown));
  return out;
}

}  // namespace stallwatch::collector::detail
