// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "alerts/alert.h"
#include "alerts/alert_rule.h"
#include "alerts/alert_state.h"
#include "catalog/metric_table.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// An alert that was firing, as remembered across a restart.
struct FiringIncident {
  std::string id;
  std::int64_t active_since_ns = 0;
  std::int64_t fired_at_ns = 0;
  bool operator==(const FiringIncident&) const = default;
};

// Judges the alert rules against each engine snapshot and keeps one
// AlertState per (rule, job, rank) that is pending, firing or recently
// resolved.
//
// Values: a rank's metric in the rule's window while the rank is active
// (NaN while silent or finished); a job's mean or max over its ranks while
// any rank is active; silent_seconds for any rank (or job) that has not
// finished. Ranks younger than the rule's warm-up (watermark - start, agent
// clock) are not judged. A rank or job that leaves the snapshot resolves its
// alerts at once. Resolved alerts are listed for `resolved_retention_ns`.
//
// Incidents that were firing before a restart (resume()) are not notified
// again: an instance that breaches again with the same id within
// `forget_after_ns` of the first evaluation resumes firing with its original
// times, and is reported by take_resumed() instead of evaluate().
//
// Pure: time is the snapshot's `now_ns`; no threads, sockets or clocks.
// Not thread-safe: the daemon's tick thread owns it. Memory is bounded by
// rules x ranks (inactive instances are not kept) plus `max_resolved`.
class AlertEvaluator {
 public:
  // `rules` must pass validate().
  explicit AlertEvaluator(std::vector<AlertRule> rules,
                          std::int64_t resolved_retention_ns = 3600'000'000'000,
                          std::size_t max_resolved = 1000);

  // Returns the alerts that fired or resolved in this evaluation, in the
  // order they changed; these are what sinks notify.
  std::vector<Alert> evaluate(const Snapshot& snapshot);

  // Pending, firing and recently resolved alerts: firing first, then
  // pending, then resolved; by id within each.
  std::vector<Alert> alerts() const;

  const std::vector<AlertRule>& rules() const { return rules_; }

  // Before the first evaluate(): what was firing before a restart.
  void resume(std::vector<FiringIncident> incidents, std::int64_t forget_after_ns);
  // The firing alerts, by id: what a restart should resume.
  std::vector<FiringIncident> firing_incidents() const;
  // Alerts that resumed firing since the last call (not notified).
  std::vector<Alert> take_resumed();

 private:
  using Key = std::tuple<std::size_t, std::string, std::int32_t>;  // rule, job, rank (-1: job)
  struct Instance {
    AlertState state;
    Alert alert;
    bool seen = false;
  };
  struct Observation {
    std::string_view job;
    std::optional<std::int32_t> rank;
    double value;
    std::string_view verdict;
    std::string_view cause = {};
  };

  void evaluate_rule(std::size_t rule_index, const Snapshot& snapshot, std::vector<Alert>& out);
  void observe(std::size_t rule_index, const Observation& o, std::int64_t now_ns,
               std::vector<Alert>& out);
  void update_record(const AlertRule& rule, Instance& instance, const Observation& o);
  void sweep(std::int64_t now_ns, std::vector<Alert>& out);

  std::vector<AlertRule> rules_;
  std::vector<std::optional<catalog::Metric>> metric_;  // per rule; empty for silent_seconds
  std::int64_t resolved_retention_ns_;
  std::size_t max_resolved_;
  std::map<Key, Instance> instances_;
  std::map<std::string, FiringIncident> resumable_;  // by id
  std::int64_t forget_after_ns_ = 0;
  std::optional<std::int64_t> forget_at_ns_;  // set by the first evaluation
  std::vector<Alert> resumed_;
};

}  // namespace stallwatch::collector
