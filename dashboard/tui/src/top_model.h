// SPDX-License-Identifier: MIT
#pragma once

// What the dashboard knows about the collector: the newest data from the
// API and the state of the link to it. The interactive app fills it from the
// WebSocket stream and background fetches; `--once` fills it from plain GETs.
// The views only read it. UI thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api_model.h"
#include "spark_history.h"

namespace stallwatch::tui {

struct LinkView {
  enum class State : std::uint8_t { kOnce, kConnecting, kLive, kReconnecting };
  State state = State::kOnce;
  std::string error;         // the last failure, when not live
  int retry_in_seconds = 0;  // until the next attempt, when not live
};

struct TopModel {
  std::string url;  // for the title line
  bool interactive = false;
  LinkView link;

  std::vector<std::string> windows;  // window names, totals last
  std::string verdict_window;
  std::vector<JobSummary> jobs;
  std::optional<JobDetail> detail;  // of the selected job, once received
  std::vector<Alert> alerts;

  // Sparklines: metric `spark_metric` over `spark_window` (the shortest window).
  std::string spark_metric{catalog::info(catalog::Metric::kDataStallRatio).name};
  std::string spark_window;
  SparkHistory history;

  // The rank detail's timeline, once fetched, and why it is missing otherwise.
  std::optional<TimelineView> timeline;
  std::string timeline_error;

  bool has_data() const { return !windows.empty(); }
  const JobSummary* find_job(const std::string& job) const {
    for (const JobSummary& j : jobs) {
      if (j.job == job) return &j;
    }
    return nullptr;
  }
};

}  // namespace stallwatch::tui
