// SPDX-License-Identifier: MIT
#pragma once

// Block-character miniatures: a sparkline of a ratio's recent history and a
// horizontal bar for one ratio. Pure; results are UTF-8 (text_width.h's
// to_ascii() maps them for non-UTF-8 terminals) and exactly `width` columns.

#include <optional>
#include <span>
#include <string>

namespace stallwatch::tui {

// The newest `width` values (oldest first in `values`), right-aligned: one
// of "▁▂▃▄▅▆▇█" per value, scaled from [lo, hi] and clamped; a missing value
// is a space, and so is the padding before the oldest.
std::string sparkline(std::span<const std::optional<double>> values, int width, double lo = 0.0,
                      double hi = 1.0);

// `ratio` (clamped to [0, 1]) of `width` columns filled, to an eighth of a
// column; the rest spaces. All spaces when the ratio is missing.
std::string ratio_bar(std::optional<double> ratio, int width);

}  // namespace stallwatch::tui
