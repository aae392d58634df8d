// SPDX-License-Identifier: MIT
#include "alerts/alert_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "default_rules.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Builds engine snapshots by hand: windows 10s, 60s and totals.
class SnapshotBuilder {
 public:
  SnapshotBuilder& rank(const std::string& job, std::int32_t rank, double stall, double idle = 0,
                        RankState state = RankState::kActive, std::int64_t age_s = 600,
                        std::int64_t silent_s = 0) {
    JobSnapshot* j = find_or_add(job);
    RankSnapshot r;
    r.job = job;
    r.rank = rank;
    r.state = state;
    r.start_ns = kT0 - age_s * kS;
    r.end_ns = kT0;
    r.watermark_ns = kT0;
    r.last_seen_ns = now_ - silent_s * kS;
    r.verdict = stall > 0.15 ? Verdict::kDataStarved : Verdict::kWellOverlapped;
    for (std::int64_t w : {10 * kS, 60 * kS, std::int64_t{0}}) {
      WindowMetrics m;
      m.window_ns = w;
      m.data_stall_ratio = stall;
      m.device_idle_ratio = idle;
      m.verdict = r.verdict;
      r.windows.push_back(m);
    }
    j->ranks.push_back(r);
    return *this;
  }

  Snapshot build(std::int64_t at_s) {
    Snapshot s;
    s.now_ns = kT0 + at_s * kS;
    s.windows_ns = {10 * kS, 60 * kS, 0};
    s.verdict_window_index = 1;
    s.verdict_window_ns = 60 * kS;
    for (JobSnapshot j : jobs_) {
      bool any_active = false;
      bool all_finished = true;
      for (auto& r : j.ranks) {
        r.last_seen_ns += s.now_ns - now_;
        any_active = any_active || r.state == RankState::kActive;
        all_finished = all_finished && r.state == RankState::kFinished;
        j.last_seen_ns = std::max(j.last_seen_ns, r.last_seen_ns);
      }
      j.state = any_active     ? RankState::kActive
                : all_finished ? RankState::kFinished
                               : RankState::kSilent;
      for (std::size_t w = 0; w < s.windows_ns.size(); ++w) {
        JobWindow jw;
        jw.window_ns = s.windows_ns[w];
        double sum = 0;
        jw.max.data_stall_ratio = 0;
        for (const auto& r : j.ranks) {
          sum += r.windows[w].data_stall_ratio;
          jw.max.data_stall_ratio =
              std::max(jw.max.data_stall_ratio, r.windows[w].data_stall_ratio);
        }
        jw.mean.data_stall_ratio = sum / static_cast<double>(j.ranks.size());
        jw.verdict =
            jw.mean.data_stall_ratio > 0.15 ? Verdict::kDataStarved : Verdict::kWellOverlapped;
        j.windows.push_back(jw);
      }
      s.jobs.push_back(j);
    }
    return s;
  }

 private:
  JobSnapshot* find_or_add(const std::string& job) {
    for (auto& j : jobs_) {
      if (j.job == job) return &j;
    }
    jobs_.push_back(JobSnapshot{});
    jobs_.back().job = job;
    return &jobs_.back();
  }

  std::int64_t now_ = kT0;
  std::vector<JobSnapshot> jobs_;
};

AlertRule starved(std::int64_t for_s = 2) {
  AlertRule r;
  r.name = "DataStarved";
  r.metric = "data_stall_ratio";
  r.window_ns = 10 * kS;
  r.threshold = 0.3;
  r.clear = 0.25;
  r.for_ns = for_s * kS;
  r.annotations = {
      {"summary", "rank {rank} of {job}: {metric}/{window} = {value} > {threshold} ({verdict})"}};
  return r;
}

Snapshot one_rank(double stall, std::int64_t at_s, RankState state = RankState::kActive) {
  return SnapshotBuilder().rank("job-a", 0, stall, 0, state).build(at_s);
}

TEST(AlertEvaluatorTest,
     RankAlertGoesPendingFiringResolvedWithNotificationsOnlyForFiringAndResolved) {
  AlertEvaluator e({starved(2)});
  EXPECT_TRUE(e.evaluate(one_rank(0.1, 0)).empty());
  EXPECT_TRUE(e.evaluate(one_rank(0.6, 1)).empty());
  ASSERT_EQ(e.alerts().size(), 1u);
  EXPECT_EQ(e.alerts()[0].phase, AlertPhase::kPending);
  EXPECT_TRUE(e.evaluate(one_rank(0.6, 2)).empty());
  auto fired = e.evaluate(one_rank(0.6, 3));
  ASSERT_EQ(fired.size(), 1u);
  const Alert& a = fired[0];
  EXPECT_EQ(a.id, "DataStarved/job-a/0");
  EXPECT_EQ(a.phase, AlertPhase::kFiring);
  EXPECT_EQ(a.job, "job-a");
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.window, "10s");
  EXPECT_DOUBLE_EQ(a.value, 0.6);
  EXPECT_EQ(a.verdict, "data-starved");
  EXPECT_EQ(a.active_since_ns, kT0 + 1 * kS);
  EXPECT_EQ(a.fired_at_ns, kT0 + 3 * kS);
  ASSERT_EQ(a.annotations.size(), 1u);
  EXPECT_EQ(a.annotations[0].second,
            "rank 0 of job-a: data_stall_ratio/10s = 0.6 > 0.3 (data-starved)");

  EXPECT_TRUE(e.evaluate(one_rank(0.28, 4)).empty());  // hysteresis band
  auto resolved = e.evaluate(one_rank(0.05, 5));
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].phase, AlertPhase::kResolved);
  EXPECT_EQ(resolved[0].resolved_at_ns, kT0 + 5 * kS);
  ASSERT_EQ(e.alerts().size(), 1u);  // resolved alerts stay listed
  EXPECT_EQ(e.alerts()[0].phase, AlertPhase::kResolved);
}

TEST(AlertEvaluatorTest, ARuleWithACauseJudgesOnlyRanksStarvedForThatCause) {
  AlertRule storage = starved(0);
  storage.name = "StarvedByStorage";
  storage.cause = "storage";
  storage.annotations = {{"summary", "rank {rank}: {verdict} ({cause})"}};
  AlertEvaluator e({storage});
  Snapshot s = SnapshotBuilder().rank("j", 0, 0.6).rank("j", 1, 0.6).build(0);
  for (WindowMetrics& m : s.jobs[0].ranks[0].windows)
    m.cause = Cause::kStorage;
  for (WindowMetrics& m : s.jobs[0].ranks[1].windows)
    m.cause = Cause::kPreprocessing;
  auto out = e.evaluate(s);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "StarvedByStorage/j/0");
  EXPECT_EQ(out[0].cause, "storage");
  ASSERT_EQ(out[0].annotations.size(), 1u);
  EXPECT_EQ(out[0].annotations[0].second, "rank 0: data-starved (storage)");
  for (WindowMetrics& m : s.jobs[0].ranks[0].windows)
    m.cause = Cause::kPreprocessing;
  s.now_ns += kS;
  out = e.evaluate(s);
  ASSERT_EQ(out.size(), 1u);  // no longer storage: resolved, though still starved
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
  EXPECT_TRUE(is_alert_cause("unknown"));
  EXPECT_FALSE(is_alert_cause("none"));
  EXPECT_FALSE(is_alert_cause("disk"));
}

TEST(AlertEvaluatorTest, AnIncidentFiringBeforeARestartResumesWithoutASecondNotification) {
  AlertEvaluator before({starved(2)});
  before.evaluate(one_rank(0.6, 0));
  ASSERT_EQ(before.evaluate(one_rank(0.6, 2)).size(), 1u);
  const std::vector<FiringIncident> kept = before.firing_incidents();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, "DataStarved/job-a/0");

  // The restarted evaluator: breached again, it fires at once (no second
  // `for`), with the original times, and notifies nobody.
  AlertEvaluator after({starved(2)});
  after.resume(kept, 60 * kS);
  EXPECT_TRUE(after.evaluate(one_rank(0.6, 10)).empty());
  const std::vector<Alert> resumed = after.take_resumed();
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].phase, AlertPhase::kFiring);
  EXPECT_EQ(resumed[0].active_since_ns, kT0);
  EXPECT_EQ(resumed[0].fired_at_ns, kT0 + 2 * kS);
  EXPECT_TRUE(after.take_resumed().empty());
  EXPECT_EQ(after.firing_incidents(), kept);
  // The incident's end is notified as usual.
  const auto resolved = after.evaluate(one_rank(0.05, 11));
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].phase, AlertPhase::kResolved);
  EXPECT_TRUE(after.firing_incidents().empty());
  // A later breach is a new incident, notified.
  after.evaluate(one_rank(0.6, 12));
  EXPECT_EQ(after.evaluate(one_rank(0.6, 14)).size(), 1u);
}

TEST(AlertEvaluatorTest, AnIncidentNotBackInTimeIsForgottenAndANewBreachNotifies) {
  AlertEvaluator e({starved(0)});
  e.resume({{"DataStarved/job-a/0", kT0 - 100 * kS, kT0 - 90 * kS}}, 30 * kS);
  EXPECT_TRUE(e.evaluate(one_rank(0.1, 0)).empty());
  EXPECT_EQ(e.firing_incidents().size(), 1u);  // still remembered
  EXPECT_TRUE(e.evaluate(one_rank(0.1, 30)).empty());
  EXPECT_TRUE(e.firing_incidents().empty());
  const auto fired = e.evaluate(one_rank(0.6, 31));
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].active_since_ns, kT0 + 31 * kS);
  EXPECT_TRUE(e.take_resumed().empty());
}

TEST(AlertEvaluatorTest, ResolvedAlertsAreForgottenAfterRetention) {
  AlertEvaluator e({starved(0)}, 10 * kS);
  e.evaluate(one_rank(0.6, 0));
  e.evaluate(one_rank(0.1, 1));
  EXPECT_EQ(e.alerts().size(), 1u);
  e.evaluate(one_rank(0.1, 10));
  EXPECT_EQ(e.alerts().size(), 1u);
  e.evaluate(one_rank(0.1, 11));
  EXPECT_TRUE(e.alerts().empty());
}

TEST(AlertEvaluatorTest, EachRankHasItsOwnAlert) {
  AlertEvaluator e({starved(0)});
  auto out =
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.6).rank("j", 1, 0.1).rank("j", 2, 0.9).build(0));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "DataStarved/j/0");
  EXPECT_EQ(out[1].id, "DataStarved/j/2");
}

TEST(AlertEvaluatorTest, JobScopeUsesTheMeanByDefaultAndMaxWhenAsked) {
  AlertRule mean = starved(0);
  mean.name = "JobStarved";
  mean.scope = AlertScope::kJob;
  AlertRule max = mean;
  max.name = "WorstRankStarved";
  max.aggregate = JobAggregate::kMax;
  AlertEvaluator e({mean, max});
  // Mean 0.2 (below), max 0.5 (above).
  auto out =
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.5).rank("j", 1, 0.1).rank("j", 2, 0.0).build(0));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "WorstRankStarved/j");
  EXPECT_FALSE(out[0].rank.has_value());
  EXPECT_EQ(out[0].scope, AlertScope::kJob);
  EXPECT_DOUBLE_EQ(out[0].value, 0.5);
  out =
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.5).rank("j", 1, 0.5).rank("j", 2, 0.2).build(1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "JobStarved/j");
  EXPECT_DOUBLE_EQ(out[0].value, 0.4);
}

TEST(AlertEvaluatorTest, WarmupIgnoresYoungRanks) {
  AlertRule r = starved(0);
  r.warmup_ns = 30 * kS;
  AlertEvaluator e({r});
  EXPECT_TRUE(
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.9, 0, RankState::kActive, 10).build(0)).empty());
  EXPECT_TRUE(e.alerts().empty());
  EXPECT_TRUE(
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.9, 0, RankState::kActive, 29).build(1)).empty());
  EXPECT_EQ(
      e.evaluate(SnapshotBuilder().rank("j", 0, 0.9, 0, RankState::kActive, 30).build(2)).size(),
      1u);
}

TEST(AlertEvaluatorTest, NaNValuesDoNotAlertAndResolveFiringAlerts) {
  AlertEvaluator e({starved(0)});
  EXPECT_TRUE(e.evaluate(one_rank(kNaN, 0)).empty());
  EXPECT_TRUE(e.alerts().empty());
  ASSERT_EQ(e.evaluate(one_rank(0.9, 1)).size(), 1u);
  auto out = e.evaluate(one_rank(kNaN, 2));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
  EXPECT_TRUE(std::isnan(out[0].value));
}

TEST(AlertEvaluatorTest, SilentAndFinishedRanksHaveNoWindowValue) {
  AlertEvaluator e({starved(0)});
  ASSERT_EQ(e.evaluate(one_rank(0.9, 0)).size(), 1u);
  auto out = e.evaluate(one_rank(0.9, 1, RankState::kSilent));  // frozen metrics are not judged
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
  EXPECT_TRUE(e.evaluate(one_rank(0.9, 2, RankState::kFinished)).empty());
}

TEST(AlertEvaluatorTest, RankDisappearingResolvesAtOnceAndCancelsPending) {
  AlertRule r = starved(0);
  r.keep_firing_for_ns = 300 * kS;
  AlertRule slow = starved(100);
  slow.name = "SlowStarved";
  AlertEvaluator e({r, slow});
  ASSERT_EQ(e.evaluate(SnapshotBuilder().rank("j", 0, 0.9).rank("j", 1, 0.1).build(0)).size(), 1u);
  EXPECT_EQ(e.alerts().size(), 2u);                                     // firing + pending
  auto out = e.evaluate(SnapshotBuilder().rank("j", 1, 0.1).build(1));  // rank 0 forgotten
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "DataStarved/j/0");
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
  EXPECT_EQ(out[0].resolved_at_ns, kT0 + 1 * kS);
  ASSERT_EQ(e.alerts().size(), 1u);  // the pending one is gone, the resolved one listed
  EXPECT_EQ(e.alerts()[0].phase, AlertPhase::kResolved);
  // A whole job vanishing behaves the same.
  ASSERT_EQ(e.evaluate(SnapshotBuilder().rank("k", 0, 0.9).build(2)).size(), 1u);
  out = e.evaluate(SnapshotBuilder().build(3));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "DataStarved/k/0");
}

TEST(AlertEvaluatorTest, RankSilentFiresAfterThirtySecondsWithoutDataUnlessFinished) {
  AlertEvaluator e(default_alert_rules());
  auto silent_for = [](std::int64_t s, RankState state, std::int64_t at) {
    return SnapshotBuilder().rank("j", 0, 0.0, 0.0, state, 600, s).rank("j", 1, 0.0).build(at);
  };
  EXPECT_TRUE(e.evaluate(silent_for(29, RankState::kSilent, 0)).empty());
  auto out = e.evaluate(silent_for(31, RankState::kSilent, 1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "RankSilent");
  EXPECT_EQ(out[0].rank, 0);
  EXPECT_EQ(out[0].severity, "critical");
  EXPECT_EQ(out[0].window, "");
  EXPECT_NEAR(out[0].value, 31, 1e-9);
  // The rank sends again: resolved.
  out = e.evaluate(silent_for(0, RankState::kActive, 2));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
  // A rank that finished cleanly is never silent.
  EXPECT_TRUE(e.evaluate(silent_for(100, RankState::kFinished, 3)).empty());
}

TEST(AlertEvaluatorTest, DefaultDataStarvedNeedsThirtySecondsAboveThirtyPercent) {
  AlertEvaluator e(default_alert_rules());
  auto snap = [](double stall, std::int64_t at) {
    return SnapshotBuilder().rank("j", 0, stall).build(at);
  };
  for (std::int64_t t = 0; t < 30; ++t)
    ASSERT_TRUE(e.evaluate(snap(0.35, t)).empty()) << t;
  auto out = e.evaluate(snap(0.35, 30));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "DataStarved");
  EXPECT_EQ(out[0].window, "60s");
  EXPECT_EQ(out[0].annotations[0].second, "Rank 0 of job j is starved for data");
}

TEST(AlertEvaluatorTest, DefaultJobHeldBackFiresAfterAMinuteAndClearsWithHysteresis) {
  std::vector<AlertRule> rules;
  for (const AlertRule& r : default_alert_rules()) {
    if (r.name == "JobHeldBack") rules.push_back(r);
  }
  ASSERT_EQ(rules.size(), 1u);
  AlertEvaluator e(rules);
  // Rank 3 holds the job back: the other ranks wait `cost` of their time for it.
  auto snap = [](double cost, std::int64_t at) {
    Snapshot s = SnapshotBuilder().rank("j", 0, 0).rank("j", 3, 0.5).build(at);
    for (JobWindow& w : s.jobs[0].windows) {
      if (cost > 0) {
        w.held_back.ranks = {3};
        w.held_back.verdicts = {Verdict::kDataStarved};
        w.held_back.cost_ratio = cost;
        w.held_back.other_ranks = 1;
      }
    }
    return s;
  };
  for (std::int64_t t = 0; t < 60; ++t)
    ASSERT_TRUE(e.evaluate(snap(0.38, t)).empty()) << t;
  auto out = e.evaluate(snap(0.38, 60));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "JobHeldBack");
  EXPECT_EQ(out[0].scope, AlertScope::kJob);
  EXPECT_EQ(out[0].annotations[0].second, "Job j is held back by some of its ranks");
  // Between clear (0.15) and the threshold it keeps firing; nobody named resolves it.
  EXPECT_TRUE(e.evaluate(snap(0.17, 61)).empty());
  out = e.evaluate(snap(0, 62));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].phase, AlertPhase::kResolved);
}

TEST(AlertEvaluatorTest, StragglerCostIsAJobMetric) {
  AlertRule r = default_alert_rules().back();
  EXPECT_EQ(validate(r, {10 * kS, 60 * kS}), "");
  r.scope = AlertScope::kRank;
  EXPECT_NE(validate(r, {10 * kS, 60 * kS}).find("scope"), std::string::npos);
}

TEST(AlertEvaluatorTest, FlappingInputProducesOneFiringNotification) {
  AlertEvaluator e({starved(2)});
  std::size_t firing = 0;
  std::size_t resolved = 0;
  for (std::int64_t t = 0; t < 300; ++t) {
    for (const Alert& a : e.evaluate(one_rank(t % 2 == 0 ? 0.31 : 0.29, t))) {
      firing += a.phase == AlertPhase::kFiring;
      resolved += a.phase == AlertPhase::kResolved;
    }
  }
  EXPECT_EQ(firing, 1u);
  EXPECT_EQ(resolved, 0u);
}

TEST(AlertEvaluatorTest, AlertsListFiringFirstThenPendingThenResolved) {
  AlertRule fast = starved(0);
  AlertRule slow = starved(100);
  slow.name = "Slow";
  AlertEvaluator e({fast, slow});
  e.evaluate(SnapshotBuilder().rank("j", 0, 0.9).rank("j", 1, 0.9).build(0));
  e.evaluate(SnapshotBuilder().rank("j", 0, 0.9).rank("j", 1, 0.1).build(1));
  const auto list = e.alerts();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].phase, AlertPhase::kFiring);
  EXPECT_EQ(list[0].id, "DataStarved/j/0");
  EXPECT_EQ(list[1].phase, AlertPhase::kPending);
  EXPECT_EQ(list[1].id, "Slow/j/0");
  EXPECT_EQ(list[2].phase, AlertPhase::kResolved);
  EXPECT_EQ(list[2].id, "DataStarved/j/1");
}

TEST(AlertEvaluatorTest, DefaultSummaryWhenTheRuleHasNone) {
  AlertRule r = starved(0);
  r.annotations.clear();
  AlertEvaluator e({r});
  auto out = e.evaluate(one_rank(0.5, 0));
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].annotations.size(), 1u);
  EXPECT_EQ(out[0].annotations[0].first, "summary");
  EXPECT_EQ(out[0].annotations[0].second,
            "DataStarved: data_stall_ratio over 10s is 0.5 for rank 0 of job job-a");
}

TEST(AlertEvaluatorTest, IdentityLabelsAreSortedAndIncludeRuleLabels) {
  Alert a;
  a.name = "DataStarved";
  a.job = "j";
  a.rank = 3;
  a.severity = "page";
  a.labels = {{"team", "ml"}};
  const AlertLabels want{{"alertname", "DataStarved"},
                         {"job_id", "j"},
                         {"rank", "3"},
                         {"severity", "page"},
                         {"team", "ml"}};
  EXPECT_EQ(identity_labels(a), want);
}

}  // namespace
}  // namespace stallwatch::collector
