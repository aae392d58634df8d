// SPDX-License-Identifier: MIT
#include "alerts/alert_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "annotation_template.h"
#include "engine/metric_fields.h"

namespace stallwatch::collector {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view kRankSummary =
    "{name}: {metric} over {window} is {value} for rank {rank} of job {job}";
constexpr std::string_view kJobSummary = "{name}: {metric} over {window} is {value} for job {job}";

double seconds_since(std::int64_t now_ns, std::int64_t then_ns) {
  return static_cast<double>(now_ns - then_ns) / 1e9;
}

std::optional<std::size_t> window_index(const Snapshot& snap, std::int64_t window_ns) {
  for (std::size_t i = 0; i < snap.windows_ns.size(); ++i) {
    if (snap.windows_ns[i] == window_ns) return i;
  }
  return std::nullopt;
}

// A rule with a cause judges only windows whose verdict has that cause.
bool matches_cause(const AlertRule& rule, Cause cause) {
  return rule.cause.empty() || rule.cause == to_string(cause);
}

int phase_order(AlertPhase p) {
  switch (p) {
    case AlertPhase::kFiring:
      return 0;
    case AlertPhase::kPending:
      return 1;
    default:
      return 2;
  }
}

}  // namespace

AlertLabels identity_labels(const Alert& alert) {
  AlertLabels out{{"alertname", alert.name}, {"job_id", alert.job}, {"severity", alert.severity}};
  if (alert.rank) out.emplace_back("rank", std::to_string(*alert.rank));
  out.insert(out.end(), alert.labels.begin(), alert.labels.end());
  std::sort(out.begin(), out.end());
  return out;
}

AlertEvaluator::AlertEvaluator(std::vector<AlertRule> rules, std::int64_t resolved_retention_ns,
                               std::size_t max_resolved)
    : rules_(std::move(rules)),
      resolved_retention_ns_(resolved_retention_ns),
      max_resolved_(max_resolved) {
  for (const AlertRule& r : rules_) {
    metric_.push_back(r.has_window() ? catalog::find_metric(r.metric) : std::nullopt);
  }
}

std::vector<Alert> AlertEvaluator::evaluate(const Snapshot& snapshot) {
  std::vector<Alert> out;
  if (!forget_at_ns_) forget_at_ns_ = snapshot.now_ns + forget_after_ns_;
  for (auto& [key, instance] : instances_)
    instance.seen = false;
  for (std::size_t r = 0; r < rules_.size(); ++r)
    evaluate_rule(r, snapshot, out);
  sweep(snapshot.now_ns, out);
  // An incident not back by then is over: a later breach is a new one.
  if (snapshot.now_ns >= *forget_at_ns_) resumable_.clear();
  return out;
}

void AlertEvaluator::evaluate_rule(std::size_t rule_index, const Snapshot& snap,
                                   std::vector<Alert>& out) {
  const AlertRule& rule = rules_[rule_index];
  std::optional<std::size_t> wi;
  const bool straggler = rule.metric == kStragglerCostMetric;
  if (rule.has_window()) {
    wi = window_index(snap, rule.window_ns);
    if (!wi || (!metric_[rule_index] && !straggler)) return;
  }
  const auto metric_of = [&](const WindowMetrics& m) {
    return metric_value(m, *metric_[rule_index]);
  };
  for (const JobSnapshot& job : snap.jobs) {
    if (rule.scope == AlertScope::kJob) {
      std::int64_t age_ns = 0;
      for (const RankSnapshot& rank : job.ranks)
        age_ns = std::max(age_ns, rank.end_ns - rank.start_ns);
      Observation o{job.job, std::nullopt, kNaN, to_string(job.verdict)};
      if (!rule.has_window()) {
        if (job.state != RankState::kFinished)
          o.value = seconds_since(snap.now_ns, job.last_seen_ns);
      } else if (*wi < job.windows.size()) {
        const JobWindow& w = job.windows[*wi];
        o.verdict = to_string(w.verdict);
        o.cause = to_string(w.mean.cause);
        if (job.state == RankState::kActive && straggler) {
          o.value = w.held_back.ranks.empty() ? 0.0 : w.held_back.cost_ratio;
        } else if (job.state == RankState::kActive && matches_cause(rule, w.mean.cause)) {
          o.value = metric_of(rule.aggregate == JobAggregate::kMean ? w.mean : w.max);
        }
      }
      if (age_ns < rule.warmup_ns) {
        if (auto it = instances_.find(Key{rule_index, job.job, -1}); it != instances_.end()) {
          it->second.seen = true;
        }
        continue;
      }
      observe(rule_index, o, snap.now_ns, out);
      continue;
    }
    if (straggler) continue;  // a job metric
    for (const RankSnapshot& rank : job.ranks) {
      Observation o{job.job, rank.rank, kNaN, to_string(rank.verdict)};
      if (!rule.has_window()) {
        if (rank.state != RankState::kFinished)
          o.value = seconds_since(snap.now_ns, rank.last_seen_ns);
      } else if (*wi < rank.windows.size()) {
        o.verdict = to_string(rank.windows[*wi].verdict);
        o.cause = to_string(rank.windows[*wi].cause);
        if (rank.state == RankState::kActive && matches_cause(rule, rank.windows[*wi].cause)) {
          o.value = metric_of(rank.windows[*wi]);
        }
      }
      if (rank.end_ns - rank.start_ns < rule.warmup_ns) {
        if (auto it = instances_.find(Key{rule_index, job.job, rank.rank});
            it != instances_.end()) {
          it->second.seen = true;
        }
        continue;
      }
      observe(rule_index, o, snap.now_ns, out);
    }
  }
}

void AlertEvaluator::observe(std::size_t rule_index, const Observation& o, std::int64_t now_ns,
                             std::vector<Alert>& out) {
  const AlertRule& rule = rules_[rule_index];
  Key key{rule_index, std::string(o.job), o.rank.value_or(-1)};
  auto it = instances_.find(key);
  if (it == instances_.end()) {
    if (!rule.breaches(o.value)) return;  // inactive instances are not kept
    it = instances_.emplace(std::move(key), Instance{}).first;
  }
  Instance& instance = it->second;
  instance.seen = true;
  AlertTransition t = instance.state.observe(rule, now_ns, o.value);
  if (instance.state.phase() == AlertPhase::kInactive) {
    instances_.erase(it);
    return;
  }
  if (t == AlertTransition::kNone && instance.state.phase() == AlertPhase::kResolved) return;
  bool resumed = false;
  if ((t == AlertTransition::kPending || t == AlertTransition::kFiring) && !resumable_.empty()) {
    std::string id = rule.name + "/" + std::string(o.job);
    if (o.rank) id += "/" + std::to_string(*o.rank);
    if (auto r = resumable_.find(id); r != resumable_.end()) {
      instance.state.resume_firing(r->second.active_since_ns, r->second.fired_at_ns);
      resumable_.erase(r);
      t = AlertTransition::kNone;
      resumed = true;
    }
  }
  update_record(rule, instance, o);
  if (resumed) resumed_.push_back(instance.alert);
  if (t == AlertTransition::kFiring || t == AlertTransition::kResolved)
    out.push_back(instance.alert);
}

void AlertEvaluator::update_record(const AlertRule& rule, Instance& instance,
                                   const Observation& o) {
  Alert& a = instance.alert;
  if (a.id.empty()) {
    a.id = rule.name + "/" + std::string(o.job);
    if (o.rank) a.id += "/" + std::to_string(*o.rank);
    a.name = rule.name;
    a.severity = rule.severity;
    a.scope = rule.scope;
    a.job = std::string(o.job);
    a.rank = o.rank;
    a.metric = rule.metric;
    if (rule.has_window()) a.window = alert_window_name(rule.window_ns);
    a.threshold = rule.threshold;
    a.labels = rule.labels;
  }
  a.phase = instance.state.phase();
  a.value = o.value;
  a.verdict = std::string(o.verdict);
  a.cause = std::string(o.cause);
  a.active_since_ns = instance.state.active_since_ns();
  a.fired_at_ns = instance.state.fired_at_ns();
  a.resolved_at_ns = instance.state.resolved_at_ns();

  const std::string rank = o.rank ? std::to_string(*o.rank) : std::string();
  const TemplateFields fields{a.name,
                              a.job,
                              rank,
                              to_string(a.scope),
                              a.metric,
                              a.window,
                              a.value,
                              a.threshold,
                              rule.clear_threshold(),
                              a.verdict,
                              a.cause,
                              a.severity,
                              to_string(a.phase)};
  a.annotations.clear();
  bool has_summary = false;
  for (const auto& [name, text] : rule.annotations) {
    has_summary = has_summary || name == "summary";
    a.annotations.emplace_back(name, render_template(text, fields));
  }
  if (!has_summary) {
    a.annotations.emplace_back(
        "summary",
        render_template(rule.scope == AlertScope::kRank ? kRankSummary : kJobSummary, fields));
  }
}

void AlertEvaluator::sweep(std::int64_t now_ns, std::vector<Alert>& out) {
  std::vector<std::pair<std::int64_t, Key>> resolved;
  for (auto it = instances_.begin(); it != instances_.end();) {
    Instance& instance = it->second;
    if (!instance.seen && instance.state.active()) {
      const AlertTransition t = instance.state.vanish(now_ns);
      if (t == AlertTransition::kResolved) {
        instance.alert.phase = AlertPhase::kResolved;
        instance.alert.resolved_at_ns = instance.state.resolved_at_ns();
        instance.alert.value = kNaN;
        out.push_back(instance.alert);
      }
    }
    const AlertPhase phase = instance.state.phase();
    if (phase == AlertPhase::kInactive ||
        (phase == AlertPhase::kResolved &&
         now_ns - instance.state.resolved_at_ns().value_or(now_ns) >= resolved_retention_ns_)) {
      it = instances_.erase(it);
      continue;
    }
    if (phase == AlertPhase::kResolved)
      resolved.emplace_back(*instance.state.resolved_at_ns(), it->first);
    ++it;
  }
  if (resolved.size() > max_resolved_) {
    std::sort(resolved.begin(), resolved.end());
    for (std::size_t i = 0; i + max_resolved_ < resolved.size(); ++i)
      instances_.erase(resolved[i].second);
  }
}

void AlertEvaluator::resume(std::vector<FiringIncident> incidents, std::int64_t forget_after_ns) {
  for (FiringIncident& i : incidents)
    resumable_[i.id] = std::move(i);
  forget_after_ns_ = forget_after_ns;
}

std::vector<FiringIncident> AlertEvaluator::firing_incidents() const {
  std::vector<FiringIncident> out;
  for (const auto& [key, instance] : instances_) {
    if (instance.state.phase() != AlertPhase::kFiring) continue;
    out.push_back({instance.alert.id, instance.state.active_since_ns(),
                   instance.state.fired_at_ns().value_or(0)});
  }
  // Not yet seen again: still remembered until forgotten.
  for (const auto& [id, incident] : resumable_)
    out.push_back(incident);
  std::sort(out.begin(), out.end(),
            [](const FiringIncident& a, const FiringIncident& b) { return a.id < b.id; });
  return out;
}

std::vector<Alert> AlertEvaluator::take_resumed() {
  return std::exchange(resumed_, {});
}

std::vector<Alert> AlertEvaluator::alerts() const {
  std::vector<Alert> out;
  out.reserve(instances_.size());
  for (const auto& [key, instance] : instances_)
    out.push_back(instance.alert);
  std::sort(out.begin(), out.end(), [](const Alert& a, const Alert& b) {
    const int pa = phase_order(a.phase);
    const int pb = phase_order(b.phase);
    return pa != pb ? pa < pb : a.id < b.id;
  });
  return out;
}

}  // namespace stallwatch::collector
