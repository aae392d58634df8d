// SPDX-License-Identifier: MIT
#include "table_layout.h"

#include <algorithm>

namespace stallwatch::tui {
namespace {

int used_width(const std::vector<Column>& columns, const std::vector<int>& widths) {
  int used = 0;
  int kept = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (widths[i] == 0) continue;
    used += widths[i];
    ++kept;
  }
  return used + kColumnGap * std::max(0, kept - 1);
}

}  // namespace

std::vector<int> fit_columns(const std::vector<Column>& columns, int total_width) {
  std::vector<int> widths;
  widths.reserve(columns.size());
  for (const Column& c : columns)
    widths.push_back(std::max(1, c.width));

  while (used_width(columns, widths) > total_width) {
    int victim = -1;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (widths[i] == 0 || columns[i].drop_order == 0) continue;
      if (victim < 0 ||
          columns[i].drop_order >= columns[static_cast<std::size_t>(victim)].drop_order) {
        victim = static_cast<int>(i);
      }
    }
    if (victim < 0) break;
    widths[static_cast<std::size_t>(victim)] = 0;
  }

  int spare = total_width - used_width(columns, widths);
  for (std::size_t i = 0; i < columns.size() && spare > 0; ++i) {
    if (widths[i] == 0 || columns[i].max_width <= widths[i]) continue;
    const int grow = std::min(spare, columns[i].max_width - widths[i]);
    widths[i] += grow;
    spare -= grow;
  }
  return widths;
}

Line header_line(const std::vector<Column>& columns, const std::vector<int>& widths, int indent) {
  Line line;
  std::string text(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (widths[i] == 0) continue;
    if (!first) text.append(kColumnGap, ' ');
    first = false;
    text += fit(columns[i].title, widths[i], columns[i].align);
  }
  line.add(std::move(text), Style::kHeader);
  return line;
}

Line row_line(const std::vector<Column>& columns, const std::vector<int>& widths,
              const std::vector<Cell>& cells, const std::string& marker, int indent) {
  Line line;
  line.add(fit(marker, indent));
  bool first = true;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (widths[i] == 0) continue;
    if (!first) line.add(std::string(kColumnGap, ' '));
    first = false;
    const Cell empty;
    const Cell& cell = i < cells.size() ? cells[i] : empty;
    line.add(fit(cell.text, widths[i], columns[i].align), cell.style);
  }
  return line;
}

}  // namespace stallwatch::tui
