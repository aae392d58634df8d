// SPDX-License-Identifier: MIT
#pragma once

// Column layout for the dashboard's tables: which columns fit a terminal of
// a given width and how wide each one is, then rows rendered into Lines.
// When the terminal is narrow, the least important columns go first (highest
// `drop_order`), so the verdict and stall figures stay on screen. Pure.

#include <string>
#include <vector>

#include "canvas.h"
#include "text_width.h"

namespace stallwatch::tui {

inline constexpr int kColumnGap = 2;

struct Column {
  std::string title;
  int width = 0;  // columns; the minimum for a flexible column
  Align align = Align::kLeft;
  int drop_order = 0;  // 0: never dropped; larger: dropped earlier
  int max_width = 0;   // > width: flexible, grows up to this from spare room
};

struct Cell {
  std::string text;
  Style style = Style::kNormal;
};

// The width of each column in `total_width` columns (0: dropped). Columns
// are dropped by decreasing drop_order (the rightmost first among equals)
// until the rest fit with kColumnGap between them; spare room then goes to
// the flexible columns, left to right.
std::vector<int> fit_columns(const std::vector<Column>& columns, int total_width);

// The heading line; `indent` columns of space come first (the cursor column).
Line header_line(const std::vector<Column>& columns, const std::vector<int>& widths, int indent);

// One row: each kept cell fitted to its column. `marker` fills the indent.
Line row_line(const std::vector<Column>& columns, const std::vector<int>& widths,
              const std::vector<Cell>& cells, const std::string& marker, int indent);

}  // namespace stallwatch::tui
