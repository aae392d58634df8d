// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallwatch::collector {

using AlertLabels = std::vector<std::pair<std::string, std::string>>;

enum class AlertComparison : std::uint8_t { kAbove = 0, kBelow = 1 };
enum class AlertScope : std::uint8_t { kRank = 0, kJob = 1 };
// What a job-scope rule compares: the mean over the job's ranks (the job's
// own verdict is judged on the mean) or the worst rank's value.
enum class JobAggregate : std::uint8_t { kMean = 0, kMax = 1 };

std::string_view to_string(AlertComparison c);  // "above", "below"
std::string_view to_string(AlertScope s);       // "rank", "job"
std::string_view to_string(JobAggregate a);     // "mean", "max"

// The rank-liveness metric: seconds since the rank's last batch (collector
// clock), defined for ranks that have not finished. It has no window.
inline constexpr std::string_view kSilentSecondsMetric = "silent_seconds";
// The job metric of who holds a job back (docs/api.md, "held_back"): the share
// of their time the other ranks wait for the ranks named, 0 when nobody is
// named. Job scope only.
inline constexpr std::string_view kStragglerCostMetric = "straggler_cost_ratio";

// One alerting rule, as configured by `[[alerts.rule]]` (see
// systemd/stallwatchd.toml). A plain value; the evaluator owns the state.
//
// The condition is `value > threshold` (above) or `value < threshold`
// (below). Once active (pending or firing) an alert stays active until the
// value is back on the other side of `clear` (hysteresis; `clear` defaults
// to the threshold). NaN — no value, e.g. an empty window or a rank that is
// not active — never breaches and always counts as recovered.
struct AlertRule {
  std::string name;
  std::string metric;  // a WindowMetrics field, kSilentSecondsMetric or kStragglerCostMetric
  std::int64_t window_ns = 60'000'000'000;  // one of the engine's windows; 0 = totals
  AlertComparison comparison = AlertComparison::kAbove;
  double threshold = 0;
  double clear = std::numeric_limits<double>::quiet_NaN();  // NaN: same as threshold
  std::int64_t for_ns = 0;                                  // pending this long before firing
  std::int64_t keep_firing_for_ns = 0;                      // firing this long after recovering
  AlertScope scope = AlertScope::kRank;
  JobAggregate aggregate = JobAggregate::kMean;
  std::int64_t warmup_ns = 0;  // ranks younger than this are not judged
  std::string severity = "warning";
  AlertLabels labels;       // extra labels sent with the alert
  AlertLabels annotations;  // templates, see annotation_template.h
  // Only ranks (jobs) whose verdict in the window has this cause ("storage",
  // "preprocessing", "unknown") are judged; the others read as NaN. Empty:
  // any.
  std::string cause;
  std::string origin;  // "file:line" of the rule, for messages

  bool has_window() const { return metric != kSilentSecondsMetric; }
  double clear_threshold() const;
  // False for NaN.
  bool breaches(double value) const;
  // True for NaN.
  bool recovered(double value) const;
};

// Checks one rule against the engine's windows (`windows_ns`, without the
// totals). Returns "" or what is wrong, starting with the rule's origin.
std::string validate(const AlertRule& rule, const std::vector<std::int64_t>& windows_ns);

// Metric names a rule may use: the metrics of catalog/metric_table.h,
// kSilentSecondsMetric and kStragglerCostMetric.
bool is_alert_metric(std::string_view metric);
// "wall_seconds, compute_seconds, ..., silent_seconds", for messages.
std::string alert_metric_names();

// Whether a rule's `cause` may be `cause`: a cause of catalog/vocabulary.h
// other than none.
bool is_alert_cause(std::string_view cause);

// "60s", "1500ms", "total": the API's window names.
std::string alert_window_name(std::int64_t window_ns);

}  // namespace stallwatch::collector
