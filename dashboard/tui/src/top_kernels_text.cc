// SPDX-License-Identifier: MIT
#include "top_kernels_text.h"

#include <algorithm>
#include <optional>

#include "format.h"
#include "table_layout.h"

namespace stallwatch::tui {
namespace {

std::vector<Cell> cells(const std::string& name, const KernelTime& k,
                        std::optional<double> wall_seconds, Style style) {
  std::optional<double> share;
  if (k.device_seconds && wall_seconds && *wall_seconds > 0)
    share = *k.device_seconds / *wall_seconds;
  std::optional<double> mean;
  if (k.device_seconds && k.count > 0) mean = *k.device_seconds / static_cast<double>(k.count);
  return {{name, style},
          {format_seconds(k.device_seconds), style},
          {format_percent(share), style},
          {format_count(static_cast<std::uint64_t>(std::max<std::int64_t>(k.count, 0))), style},
          {format_seconds(mean), style}};
}

}  // namespace

bool has_top_kernels(const RankRow& rank) {
  return std::any_of(rank.top_kernels.begin(), rank.top_kernels.end(),
                     [](const auto& entry) { return !entry.second.kernels.empty(); });
}

std::vector<Line> top_kernels_lines(const RankRow& rank, const std::string& window, int width) {
  std::vector<Line> out;
  if (!has_top_kernels(rank)) return out;
  Line title;
  title.add("TOP KERNELS BY DEVICE TIME", Style::kHeader);
  const auto it = rank.top_kernels.find(window);
  if (it == rank.top_kernels.end()) {
    title.add(" kept per window, not for " + window_label(window), Style::kDim);
    out.push_back(std::move(title));
    return out;
  }
  title.add(" " + window_label(window) + " · each counted whole where it ended", Style::kDim);
  out.push_back(std::move(title));
  const std::vector<Column> columns{{"KERNEL", 20, Align::kLeft, 0, 200},
                                    {"DEVICE", 9, Align::kRight, 0},
                                    {"SHARE", 6, Align::kRight, 2},
                                    {"COUNT", 8, Align::kRight, 1},
                                    {"MEAN", 8, Align::kRight, 3}};
  const auto widths = fit_columns(columns, width - 2);
  out.push_back(header_line(columns, widths, 2));
  const TopKernelsView& top = it->second;
  const Metrics* m = rank.window(window);
  const std::optional<double> wall =
      m != nullptr ? m->get(catalog::Metric::kWallSeconds) : std::nullopt;
  if (top.kernels.empty()) {
    Line none;
    none.add("  no device work in this window", Style::kDim);
    out.push_back(std::move(none));
  }
  for (const KernelTime& k : top.kernels)
    out.push_back(row_line(columns, widths, cells(k.name, k, wall, Style::kNormal), "", 2));
  if (top.other.count > 0)
    out.push_back(
        row_line(columns, widths, cells("other kernels", top.other, wall, Style::kDim), "", 2));
  return out;
}

}  // namespace stallwatch::tui
