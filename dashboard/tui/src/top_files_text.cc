// SPDX-License-Identifier: MIT
#include "top_files_text.h"

#include <algorithm>

#include "format.h"
#include "table_layout.h"

namespace stallwatch::tui {
namespace {

std::vector<Cell> cells(const std::string& path, const FileIo& f, Style style) {
  return {
      {path, style},
      {format_seconds(f.io_seconds), style},
      {format_bytes(static_cast<std::uint64_t>(std::max<std::int64_t>(f.read_bytes, 0))), style},
      {format_bytes(static_cast<std::uint64_t>(std::max<std::int64_t>(f.write_bytes, 0))), style},
      {format_count(static_cast<std::uint64_t>(std::max<std::int64_t>(f.ops, 0))), style}};
}

}  // namespace

bool has_top_files(const RankRow& rank) {
  return std::any_of(rank.top_files.begin(), rank.top_files.end(),
                     [](const auto& entry) { return !entry.second.files.empty(); });
}

std::vector<Line> top_files_lines(const RankRow& rank, const std::string& window, int width) {
  std::vector<Line> out;
  if (!has_top_files(rank)) return out;
  Line title;
  title.add("TOP FILES BY I/O TIME", Style::kHeader);
  const std::string label = window == "total" ? "since start" : window_label(window);
  const auto it = rank.top_files.find(window);
  if (it == rank.top_files.end()) {
    title.add(" kept per window, not for " + label, Style::kDim);
    out.push_back(std::move(title));
    return out;
  }
  title.add(" " + label + " · each call counted whole where it ended", Style::kDim);
  out.push_back(std::move(title));
  const std::vector<Column> columns{{"FILE", 20, Align::kLeft, 0, 200},
                                    {"I/O TIME", 9, Align::kRight, 0},
                                    {"READ", 10, Align::kRight, 1},
                                    {"WRITTEN", 10, Align::kRight, 2},
                                    {"CALLS", 8, Align::kRight, 3}};
  const auto widths = fit_columns(columns, width - 2);
  out.push_back(header_line(columns, widths, 2));
  const TopFilesView& top = it->second;
  if (top.files.empty()) {
    Line none;
    none.add("  no file I/O in this window", Style::kDim);
    out.push_back(std::move(none));
  }
  for (const FileIo& f : top.files)
    out.push_back(row_line(columns, widths, cells(f.path, f, Style::kNormal), "", 2));
  if (top.other.ops > 0)
    out.push_back(row_line(columns, widths, cells("other files", top.other, Style::kDim), "", 2));
  return out;
}

}  // namespace stallwatch::tui
