// SPDX-License-Identifier: MIT
#pragma once

// How the integration tests run the CLI under test: `stallwatch top ...`,
// `stallwatch status ...`. STALLWATCH_TUI_CLI is the real `stallwatch` binary
// (set by CMake).

#include <string>
#include <vector>

#include "process_runner.h"

namespace stallwatch::tui::test {

inline const char* tui_cli_path() {
  return STALLWATCH_TUI_CLI;
}

inline std::string url_of(int http_port) {
  return "http://127.0.0.1:" + std::to_string(http_port);
}

// Runs `CLI args...` in a UTF-8 locale unless `env` says otherwise.
inline ProcessResult run_cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), tui_cli_path());
  const auto has = [&env](const std::string& name) {
    for (const std::string& e : env) {
      if (e.rfind(name + "=", 0) == 0) return true;
    }
    return false;
  };
  // A developer's own settings must not leak into the tests.
  for (const char* name : {"LC_ALL", "STALLWATCH_URL", "STALLWATCH_TOKEN"}) {
    if (!has(name))
      env.push_back(std::string(name) + (std::string(name) == "LC_ALL" ? "=C.UTF-8" : "="));
  }
  return run_process(args, env);
}

}  // namespace stallwatch::tui::test
