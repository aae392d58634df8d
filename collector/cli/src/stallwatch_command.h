// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::collector {

// The `stallwatch` CLI: subcommands dispatched to the component that owns
// them. `analyze` (collector/analyze) runs in this process, which links only
// what it needs (no curl, OpenSSL, ncurses or ZeroMQ: its start and memory are
// the analysis's); the terminal dashboards (dashboard/tui) and `replay`
// (collector/replay) run in `stallwatch-client` (client_command.h), exec'd
// with the same arguments. Exit codes are the subcommand's; 2 for an unknown
// subcommand or missing arguments.
//
//   stallwatch top [--url URL] [--once] ...     live terminal dashboard
//   stallwatch status [--url URL] [--json]      daemon and job summary
//   stallwatch analyze FILE... [--json] ...     DFAnalyzer / HTA style analysis
//   stallwatch replay FILE... [--speed N|max]   replay traces into stallwatchd
int stallwatch_main(int argc, char** argv);

}  // namespace stallwatch::collector
