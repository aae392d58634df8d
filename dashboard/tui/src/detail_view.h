// SPDX-License-Identifier: MIT
#pragma once

// The rank detail's body (key Enter): who the rank is (state, processes,
// device source), every metric for every window side by side, and a text
// timeline of its last seconds, one row per thread. Pure.

#include "canvas.h"
#include "top_model.h"
#include "top_state.h"

namespace stallwatch::tui {

void compose_detail_body(Canvas& canvas, const TopState& state, const TopModel& model, int rows);

}  // namespace stallwatch::tui
