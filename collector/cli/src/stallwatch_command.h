// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::collector {

// The `stallwatch` CLI: one binary, subcommands dispatched to the component
// that owns them (terminal dashboards: dashboard/tui; trace analysis and
// replay: collector/replay). Exit codes are the subcommand's; 2 for an
// unknown subcommand or missing arguments.
//
//   stallwatch top [--url URL] [--once] ...     live terminal dashboard
//   stallwatch status [--url URL] [--json]      daemon and job summary
//   stallwatch analyze FILE... [--json] ...     DFAnalyzer / HTA style analysis
//   stallwatch replay FILE... [--speed N|max]   replay traces into stallwatchd
int stallwatch_main(int argc, char** argv);

}  // namespace stallwatch::collector
