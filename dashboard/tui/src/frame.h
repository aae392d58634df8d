// SPDX-License-Identifier: MIT
#pragma once

// One whole screen of `stallwatch top`: the title line (URL, window, sort,
// link state), a reconnecting banner when the collector is gone, the current
// view's body, the alerts line and, when interactive, the key line. Pure:
// the same function draws the live terminal and `--once`.

#include <vector>

#include "api_model.h"
#include "canvas.h"
#include "top_model.h"
#include "top_state.h"

namespace stallwatch::tui {

// `height` <= 0: as many lines as the content needs (--once). Otherwise
// exactly `height` lines: the body is cut, the alerts and key lines stay.
Canvas compose_frame(const TopState& state, const TopModel& model, int width, int height);

// "alerts: none", or the firing then pending alerts of every job.
Line alerts_line(const std::vector<Alert>& alerts);

}  // namespace stallwatch::tui
