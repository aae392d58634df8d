// SPDX-License-Identifier: MIT
#include "analyze_top_files.h"

#include <algorithm>
#include <string>

#include "traces/text_table.h"

namespace stallwatch::collector {
namespace {

using nlohmann::json;

const TopFiles* whole_run(const RankSnapshot& rank) {
  const auto it = std::find_if(rank.top_files.begin(), rank.top_files.end(),
                               [](const TopFiles& t) { return t.window_ns == 0; });
  if (it == rank.top_files.end() || (it->files.empty() && it->other.ops == 0)) return nullptr;
  return &*it;
}

json file_json(const FileIoEntry& f, bool with_path) {
  json out = json::object();
  if (with_path) out["path"] = f.path;
  out["io_seconds"] = static_cast<double>(f.io_ns) / 1e9;
  out["read_bytes"] = f.read_bytes;
  out["write_bytes"] = f.write_bytes;
  out["ops"] = f.ops;
  return out;
}

std::vector<std::string> cells(const std::string& who, const std::string& path,
                               const FileIoEntry& f) {
  return {who,
          path,
          fixed(static_cast<double>(f.io_ns) / 1e9, 6),
          std::to_string(f.read_bytes),
          std::to_string(f.write_bytes),
          std::to_string(f.ops)};
}

}  // namespace

ReportRows top_files_rows(const Snapshot& snap) {
  ReportRows out{{"job/rank", "file", "I/O s", "read bytes", "written bytes", "calls"}, {}};
  for (const JobSnapshot& job : snap.jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      const TopFiles* top = whole_run(rank);
      if (top == nullptr) continue;
      const std::string who = job.job + "/" + std::to_string(rank.rank);
      for (const FileIoEntry& f : top->files)
        out.rows.push_back(cells(who, f.path, f));
      if (top->other.ops > 0) out.rows.push_back(cells(who, "other files", top->other));
    }
  }
  return out;
}

void write_top_files_text(const Snapshot& snap, std::ostream& out) {
  ReportRows rows = top_files_rows(snap);
  if (rows.rows.empty()) return;
  TextTable table(std::move(rows.header));
  for (std::vector<std::string>& row : rows.rows)
    table.row(std::move(row));
  out << "\ntop files by I/O time (whole run): time inside POSIX and stdio calls per file, "
         "each call whole\n";
  table.print(out);
}

json top_files_json(const RankSnapshot& rank) {
  const TopFiles* top = whole_run(rank);
  if (top == nullptr) return nullptr;
  json files = json::array();
  for (const FileIoEntry& f : top->files)
    files.push_back(file_json(f, true));
  return {{"files", std::move(files)}, {"other", file_json(top->other, false)}};
}

}  // namespace stallwatch::collector
