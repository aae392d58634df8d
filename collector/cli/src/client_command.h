// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::collector {

// `stallwatch-client`: the subcommands of `stallwatch` that talk to a running
// stallwatchd — the terminal dashboards `top` and `status` (HTTP/WebSocket
// clients, curl, OpenSSL, ncurses) and `replay` (a ZeroMQ sender). It lives in
// <libexecdir>/stallwatch and is exec'd by `stallwatch`, which links none of
// those libraries, so that `stallwatch analyze` starts without loading them.
// `argv` is the `stallwatch` command line as the user typed it (argv[1] is the
// subcommand). Exit codes are the subcommand's; 2 for an unknown one.
int client_main(int argc, char** argv);

}  // namespace stallwatch::collector
