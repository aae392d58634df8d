// SPDX-License-Identifier: MIT
#pragma once

// Entry points of the `stallwatch` CLI's terminal subcommands. argv[0] is the
// subcommand name ("top", "status"); the rest are its flags. Both return the
// process exit status and never throw.
//
//   stallwatch top [--url URL] [--token T] [--once] [--window W] [--job JOB] [--width N]
//     Live dashboard; exit 0 on `q`, 128+signal on SIGINT/SIGTERM/SIGHUP, 2 on
//     usage errors. With --once: one plain-text frame on stdout, exit 0 if the
//     collector answered, 1 if not.
//   stallwatch status [--url URL] [--token T] [--json]
//     Exit 0 when the collector answers, 1 when it cannot be reached, 2 on usage errors.

namespace stallwatch::tui {

int run_top(int argc, char** argv);
int run_status(int argc, char** argv);

}  // namespace stallwatch::tui
