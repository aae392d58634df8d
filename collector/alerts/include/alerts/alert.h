// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "alerts/alert_rule.h"
#include "alerts/alert_state.h"

namespace stallwatch::collector {

// One alert instance as the evaluator last saw it: what the sinks send and
// the API lists. A plain value, copied freely between threads.
struct Alert {
  std::string id;    // "<rule>/<job>/<rank>", or "<rule>/<job>" for job scope
  std::string name;  // the rule's name (Alertmanager `alertname`)
  AlertPhase phase = AlertPhase::kInactive;
  std::string severity;
  AlertScope scope = AlertScope::kRank;
  std::string job;
  std::optional<std::int32_t> rank;  // empty for job scope
  std::string metric;
  std::string window;  // "60s", "total"; empty for silent_seconds
  double value = std::numeric_limits<double>::quiet_NaN();
  double threshold = 0;
  std::string verdict;      // verdict of the rank/job in the rule's window; empty when none
  std::string cause;        // the verdict's cause ("none" unless data-starved); empty when none
  AlertLabels labels;       // the rule's extra labels
  AlertLabels annotations;  // rendered
  std::int64_t active_since_ns = 0;  // when it went pending
  std::optional<std::int64_t> fired_at_ns;
  std::optional<std::int64_t> resolved_at_ns;
};

// The label set that identifies the alert to Alertmanager: alertname,
// job_id, rank (rank scope), severity and the rule's labels, sorted by name.
AlertLabels identity_labels(const Alert& alert);

}  // namespace stallwatch::collector
