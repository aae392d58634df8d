// SPDX-License-Identifier: MIT
#pragma once

// The main view's body: the jobs table, then the selected job's ranks with
// their metrics for the chosen window, overlap bars and stall sparklines.
// Paged to fit `rows` lines (rows < 0: everything, for --once). Pure.

#include <vector>

#include "canvas.h"
#include "table_layout.h"
#include "top_model.h"
#include "top_state.h"

namespace stallwatch::tui {

void compose_main_body(Canvas& canvas, const TopState& state, const TopModel& model, int rows);

// The tables' columns; exposed for the layout tests.
std::vector<Column> job_columns();
std::vector<Column> rank_columns(const TopModel& model);

}  // namespace stallwatch::tui
