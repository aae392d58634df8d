// SPDX-License-Identifier: MIT
#pragma once

// Reads Prometheus text format 0.0.4 (what GET /metrics serves) into samples,
// strictly enough to catch a malformed line, so the tests can look gauges up
// by name and labels. Test-only; promtool does the full format check.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stallwatch::test {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Every sample of `text`, or nullopt (with the offending line in `error`).
std::optional<std::vector<PromSample>> parse_prometheus(const std::string& text,
                                                        std::string* error = nullptr);

// The value of the one sample with this name and (at least) these labels.
std::optional<double> find_sample(const std::vector<PromSample>& samples, const std::string& name,
                                  const std::map<std::string, std::string>& labels);

// Runs `promtool check metrics` on `text` when promtool was found at
// configure time; returns its complaints ("" when it accepts the text).
std::string promtool_complaints(const std::string& text, const std::string& scratch_dir);

}  // namespace stallwatch::test
