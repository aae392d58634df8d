// SPDX-License-Identifier: MIT
#pragma once

// Runs a command to completion for a test: stdin from /dev/null, stdout and
// stderr captured, extra environment variables, a deadline (then SIGKILL).
// Test-only.

#include <chrono>
#include <string>
#include <vector>

namespace stallwatch::tui::test {

struct ProcessResult {
  int exit_code = -1;  // 128+signal when killed by one
  bool timed_out = false;
  std::string out;
  std::string err;
};

// `env` entries are "NAME=value"; they replace inherited variables of that name.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env = {},
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace stallwatch::tui::test
