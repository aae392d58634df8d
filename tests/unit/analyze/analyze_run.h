// SPDX-License-Identifier: MIT
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyze_command.h"

namespace stallwatch::collector {

// What one `stallwatch analyze` run printed and returned.
struct CommandRun {
  int code = -1;
  std::string out;
  std::string err;
};

inline CommandRun analyze(const std::vector<std::string>& words) {
  std::vector<std::string_view> args(words.begin(), words.end());
  std::ostringstream out, err;
  CommandRun r;
  r.code = run_analyze(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace stallwatch::collector
