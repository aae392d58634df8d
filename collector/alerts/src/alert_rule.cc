// SPDX-License-Identifier: MIT
#include "alerts/alert_rule.h"

#include <algorithm>
#include <cmath>

#include "annotation_template.h"
#include "catalog/metric_table.h"
#include "catalog/vocabulary.h"
#include "engine/engine_config.h"

namespace stallwatch::collector {
namespace {

// Labels the alerts component sets itself (alert_json.h).
constexpr std::string_view kReservedLabels[] = {"alertname", "job_id", "rank", "severity"};

bool is_label_name(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return s.rfind("__", 0) != 0;
}

std::string where(const AlertRule& rule) {
  std::string out = rule.origin.empty() ? std::string() : rule.origin + ": ";
  return out + "alert rule '" + rule.name + "': ";
}

}  // namespace

std::string_view to_string(AlertComparison c) {
  return c == AlertComparison::kAbove ? "above" : "below";
}

std::string_view to_string(AlertScope s) {
  return s == AlertScope::kRank ? "rank" : "job";
}

std::string_view to_string(JobAggregate a) {
  return a == JobAggregate::kMean ? "mean" : "max";
}

double AlertRule::clear_threshold() const {
  return std::isnan(clear) ? threshold : clear;
}

bool AlertRule::breaches(double value) const {
  if (std::isnan(value)) return false;
  return comparison == AlertComparison::kAbove ? value > threshold : value < threshold;
}

bool AlertRule::recovered(double value) const {
  if (std::isnan(value)) return true;
  const double c = clear_threshold();
  return comparison == AlertComparison::kAbove ? value <= c : value >= c;
}

bool is_alert_metric(std::string_view metric) {
  return metric == kSilentSecondsMetric || metric == kStragglerCostMetric ||
         catalog::find_metric(metric).has_value();
}

bool is_alert_cause(std::string_view cause) {
  const auto* term = catalog::find_term(catalog::kCauses, cause);
  return term != nullptr && term->id != catalog::Cause::kNone;
}

std::string alert_metric_names() {
  std::string out;
  for (const catalog::MetricInfo& m : catalog::kMetrics)
    out += std::string(m.name) + ", ";
  return out + std::string(kSilentSecondsMetric) + ", " + std::string(kStragglerCostMetric);
}

std::string alert_window_name(std::int64_t window_ns) {
  if (window_ns == 0) return "total";
  if (window_ns % kNsPerSecond == 0) return std::to_string(window_ns / kNsPerSecond) + "s";
  return std::to_string(window_ns / 1'000'000) + "ms";
}

std::string validate(const AlertRule& rule, const std::vector<std::int64_t>& windows_ns) {
  if (rule.name.empty() || !is_label_name(rule.name)) {
    return where(rule) + "name must be a word of letters, digits and '_'";
  }
  if (!is_alert_metric(rule.metric)) {
    return where(rule) + "unknown metric '" + rule.metric + "' (known: " + alert_metric_names() +
           ")";
  }
  if (rule.has_window() && rule.window_ns != 0 &&
      std::find(windows_ns.begin(), windows_ns.end(), rule.window_ns) == windows_ns.end()) {
    std::string known;
    for (auto w : windows_ns)
      known += alert_window_name(w) + ", ";
    return where(rule) + "window " + alert_window_name(rule.window_ns) +
           " is not one of the engine's windows (" + known + "total); add it to engine.windows";
  }
  if (rule.metric == kStragglerCostMetric && rule.scope != AlertScope::kJob) {
    return where(rule) + std::string(kStragglerCostMetric) +
           " is a job metric: set scope = \"job\"";
  }
  if (!std::isfinite(rule.threshold)) return where(rule) + "threshold must be a finite number";
  if (!std::isnan(rule.clear)) {
    if (!std::isfinite(rule.clear)) return where(rule) + "clear must be a finite number";
    const bool above = rule.comparison == AlertComparison::kAbove;
    if (above ? rule.clear > rule.threshold : rule.clear < rule.threshold) {
      return where(rule) + "clear must be " + (above ? "at most" : "at least") +
             " the threshold, so that the alert clears on the other side of it";
    }
  }
  if (rule.for_ns < 0 || rule.keep_firing_for_ns < 0 || rule.warmup_ns < 0) {
    return where(rule) + "for, keep_firing_for and warmup must not be negative";
  }
  if (rule.severity.empty()) return where(rule) + "severity must not be empty";
  for (const auto& [name, value] : rule.labels) {
    if (!is_label_name(name)) return where(rule) + "label '" + name + "' is not a valid label name";
    if (std::find(std::begin(kReservedLabels), std::end(kReservedLabels), name) !=
        std::end(kReservedLabels)) {
      return where(rule) + "label '" + name +
             "' is set by stallwatch (use severity = ... for severity)";
    }
  }
  for (const auto& [name, text] : rule.annotations) {
    if (!is_label_name(name)) return where(rule) + "annotation '" + name + "' is not a valid name";
    if (auto err = check_template(text); !err.empty()) {
      return where(rule) + "annotation '" + name + "': " + err;
    }
  }
  return {};
}

}  // namespace stallwatch::collector
