// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stallwatch::collector {

// One alert as the API shows it (docs/api.md, `GET /api/v1/alerts`). The
// alerts component converts its own state into this.
struct AlertView {
  std::string id;        // e.g. "DataStarved/demo-slow/0"
  std::string name;      // rule name, e.g. "DataStarved"
  std::string state;     // "pending", "firing", "resolved"
  std::string severity;  // e.g. "warning"
  std::string job;
  std::optional<std::int32_t> rank;  // empty for job-scope alerts
  std::string scope;                 // "rank" or "job"
  std::string metric;                // e.g. "data_stall_ratio"
  std::string window;                // e.g. "60s"
  double value = std::numeric_limits<double>::quiet_NaN();
  double threshold = 0;
  std::string verdict;  // empty when unknown
  std::string cause;    // of a data-starved verdict; "none" or empty otherwise
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
  std::int64_t active_since_ns = 0;
  std::optional<std::int64_t> fired_at_ns;
  std::optional<std::int64_t> resolved_at_ns;
};

}  // namespace stallwatch::collector
