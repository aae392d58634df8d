#pragma once

// The colour role of each verdict, state and alert, and the one-line
// meaning of each verdict, shared by every view (the same tones as the web
// page: red only for problems). Pure.

#include <string_view>

#include "canvas.h"

namespace stallwatch::tui {

// data-starved: bad (red); io-bound, host-bound: warn (amber);
// well-overlapped: good (green); idle: dim.
Style verdict_style(std::string_view verdict);
// active: normal; silent: warn; finished: dim.
Style state_style(std::string_view state);
// firing: bad; pending: warn; resolved: dim.
Style alert_style(std::string_view state);
// One sentence a user can act on, for the help view.
std::string_view verdict_meaning(std::string_view verdict);

inline constexpr std::string_view kComputeProxy = "compute-proxy";
inline constexpr std::string_view kProxyNote =
    "no device signal: compute stands in for device busy";

}  // namespace stallwatch::tui
