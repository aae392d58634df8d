// SPDX-License-Identifier: MIT
#include "top_files_json.h"

#include <algorithm>

namespace stallwatch::collector {
namespace {

void write_file(JsonWriter& w, const FileIoEntry& f, bool with_path) {
  w.begin_object();
  if (with_path) w.key("path").string(f.path);
  w.key("io_seconds").number(static_cast<double>(f.io_ns) / 1e9);
  w.key("read_bytes").integer(f.read_bytes);
  w.key("write_bytes").integer(f.write_bytes);
  w.key("ops").integer(f.ops);
  w.end_object();
}

}  // namespace

void write_top_files(JsonWriter& w, const RankSnapshot& rank,
                     const std::vector<std::string_view>& window_names) {
  w.begin_object();
  // Most ranks have no captured file I/O: their rows stay small.
  const bool any = std::any_of(rank.top_files.begin(), rank.top_files.end(), [](const TopFiles& t) {
    return !t.files.empty() || t.other.ops > 0;
  });
  for (std::size_t i = 0; any && i < rank.top_files.size() && i < window_names.size(); ++i) {
    const TopFiles& top = rank.top_files[i];
    w.key(window_names[i]).begin_object();
    w.key("files").begin_array();
    for (const FileIoEntry& f : top.files)
      write_file(w, f, true);
    w.end_array();
    w.key("other");
    write_file(w, top.other, false);
    w.end_object();
  }
  w.end_object();
}

}  // namespace stallwatch::collector
