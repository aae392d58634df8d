// SPDX-License-Identifier: MIT
#pragma once

// The live `stallwatch top`: wires the WebSocket stream, the background
// fetches, the pure state and views, and the curses screen into one loop on
// the calling thread. Redraws when data, the link state, a key or the
// terminal size changes. A lost collector shows a reconnecting banner over
// the last data and never ends the loop; q, SIGINT, SIGTERM and SIGHUP do,
// and the terminal is restored on every exit path.

#include <iosfwd>

#include "cli_options.h"

namespace stallwatch::tui {

// Returns the exit status: 0 after q, 128+signal after a signal, 1 when the
// terminal cannot be used.
int run_top_live(const TopOptions& options, std::ostream& err);

}  // namespace stallwatch::tui
