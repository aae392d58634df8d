// SPDX-License-Identifier: MIT
#pragma once

// The help view's body (key h): keys, what each verdict and colour means,
// the timeline legend and the columns. Pure.

#include "canvas.h"
#include "top_model.h"

namespace stallwatch::tui {

void compose_help_body(Canvas& canvas, const TopModel& model);

}  // namespace stallwatch::tui
