// SPDX-License-Identifier: MIT
#pragma once

// A rank's top kernels by device time (docs/api.md, "Top kernels by device
// time") as the terminal dashboard's rank detail shows them, in the same
// words as the web page (dashboard/web/js/top_kernels.js). Pure.

#include <string>
#include <vector>

#include "api_model.h"
#include "canvas.h"

namespace stallwatch::tui {

// Whether any window of the rank lists a kernel.
bool has_top_kernels(const RankRow& rank);

// The section, `width` columns wide: a title naming `window`, then a table
// (kernel, device time, share of the window's wall time, count, mean) with
// one row per kernel, most device time first, and "other kernels" when it
// holds any. Nothing for a rank without kernels; a line saying so for a
// window that keeps none (the totals).
std::vector<Line> top_kernels_lines(const RankRow& rank, const std::string& window, int width);

}  // namespace stallwatch::tui
