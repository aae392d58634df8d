// SPDX-License-Identifier: MIT
#pragma once

// `stallwatch top --once`: fetches the job list, the selected job's detail,
// its stall history and the alerts with plain GETs, and prints the same frame
// the live dashboard would show, as plain text (no escape codes, no curses).
// Blocking; for scripts and tests.

#include <iosfwd>

#include "cli_options.h"
#include "top_model.h"
#include "top_state.h"

namespace stallwatch::tui {

// Exit status: 0 when the collector answered, 1 when it did not (the reason
// goes to `err`), 2 for a --window the collector does not have.
int run_top_once(const TopOptions& options, std::ostream& out, std::ostream& err);

// The shortest window with history (the sparklines' window), or "" when the
// collector has only totals.
std::string spark_window_of(const std::vector<std::string>& windows);

}  // namespace stallwatch::tui
