// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::collector {

// The whole of stallwatchd: flags and config, logging, the Daemon, and a
// clean shutdown on SIGINT/SIGTERM. Exit codes: 0 clean shutdown, 1 could not
// start (e.g. a port in use), 2 bad flag or configuration.
int stallwatchd_main(int argc, char** argv);

}  // namespace stallwatch::collector
