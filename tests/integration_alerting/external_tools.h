// SPDX-License-Identifier: MIT
#pragma once

// Helpers for tests that run the real Debian tools (prometheus,
// prometheus-alertmanager, promtool, systemd-analyze). Test-only code.

#include <chrono>
#include <string>

#include "child_process.h"

namespace stallwatch::test {

// Polls GET http://127.0.0.1:<port><path> until it answers 200; false when
// `server` exits first or `timeout` passes.
bool wait_http_ready(ChildProcess& server, int port, const std::string& path,
                     std::chrono::milliseconds timeout);

// Runs `command` through /bin/sh; returns its exit status and, in `output`,
// what it wrote to stdout and stderr.
int run_command(const std::string& command, std::string& output);

}  // namespace stallwatch::test
