// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace stallwatch::bench {

// The trace benches' command line: [--runs N] FILE...; `files` keeps the
// defaults when none is given.
inline void parse_bench_args(int argc, char** argv, int& runs, std::vector<std::string>& files) {
  std::vector<std::string> given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      given.push_back(arg);
    }
  }
  if (!given.empty()) files = std::move(given);
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace stallwatch::bench
