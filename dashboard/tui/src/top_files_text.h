// SPDX-License-Identifier: MIT
#pragma once

// A rank's top files by I/O time (docs/api.md, "Top files by I/O time") as
// the terminal dashboard's rank detail shows them, in the same words as the
// web page (dashboard/web/js/top_files.js). Pure.

#include <string>
#include <vector>

#include "api_model.h"
#include "canvas.h"

namespace stallwatch::tui {

// Whether any window of the rank lists a file.
bool has_top_files(const RankRow& rank);

// The section, `width` columns wide: a title naming `window`, then a table
// (file, I/O time, read, written, calls) with one row per file, most time
// first, and "other files" when it holds calls. Nothing for a rank without
// files; a line saying so for a window that keeps none (the totals).
std::vector<Line> top_files_lines(const RankRow& rank, const std::string& window, int width);

}  // namespace stallwatch::tui
