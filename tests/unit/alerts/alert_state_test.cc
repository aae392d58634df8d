// SPDX-License-Identifier: MIT
#include "alerts/alert_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

AlertRule rule(double threshold, std::int64_t for_s, std::int64_t keep_s = 0, double clear = kNaN) {
  AlertRule r;
  r.name = "DataStarved";
  r.metric = "data_stall_ratio";
  r.threshold = threshold;
  r.for_ns = for_s * kS;
  r.keep_firing_for_ns = keep_s * kS;
  r.clear = clear;
  return r;
}

// Feeds one value per second starting at t = 1 s; returns the transitions.
std::vector<AlertTransition> feed(AlertState& s, const AlertRule& r,
                                  const std::vector<double>& values, std::int64_t start_s = 1) {
  std::vector<AlertTransition> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out.push_back(s.observe(r, (start_s + static_cast<std::int64_t>(i)) * kS, values[i]));
  }
  return out;
}

std::size_t count(const std::vector<AlertTransition>& ts, AlertTransition t) {
  std::size_t n = 0;
  for (auto x : ts)
    n += x == t;
  return n;
}

TEST(AlertStateTest, BelowThresholdStaysInactive) {
  AlertState s;
  const auto r = rule(0.3, 5);
  auto ts = feed(s, r, {0.0, 0.1, 0.3, 0.29});
  EXPECT_EQ(count(ts, AlertTransition::kNone), 4u);
  EXPECT_EQ(s.phase(), AlertPhase::kInactive);
}

TEST(AlertStateTest, PendingThenFiringAfterForThenResolved) {
  AlertState s;
  const auto r = rule(0.3, 3);
  EXPECT_EQ(s.observe(r, 10 * kS, 0.5), AlertTransition::kPending);
  EXPECT_EQ(s.phase(), AlertPhase::kPending);
  EXPECT_EQ(s.active_since_ns(), 10 * kS);
  EXPECT_EQ(s.observe(r, 11 * kS, 0.5), AlertTransition::kNone);
  EXPECT_EQ(s.observe(r, 12 * kS, 0.6), AlertTransition::kNone);
  EXPECT_EQ(s.observe(r, 13 * kS, 0.6), AlertTransition::kFiring);  // 3 s after pending
  EXPECT_EQ(s.phase(), AlertPhase::kFiring);
  EXPECT_EQ(s.fired_at_ns(), 13 * kS);
  EXPECT_EQ(s.observe(r, 14 * kS, 0.9), AlertTransition::kNone);
  EXPECT_EQ(s.observe(r, 15 * kS, 0.1), AlertTransition::kResolved);
  EXPECT_EQ(s.phase(), AlertPhase::kResolved);
  EXPECT_EQ(s.resolved_at_ns(), 15 * kS);
  EXPECT_EQ(s.active_since_ns(), 10 * kS);
}

TEST(AlertStateTest, TickJitterDoesNotCostATick) {
  AlertState s;
  const auto r = rule(0.3, 2, 1);
  const std::int64_t jitter = 10'000;  // ticks land 10 us short of the deadline
  ASSERT_EQ(s.observe(r, 0, 0.5), AlertTransition::kPending);
  EXPECT_EQ(s.observe(r, 2 * kS - jitter, 0.5), AlertTransition::kFiring);
  ASSERT_EQ(s.observe(r, 3 * kS, 0.1), AlertTransition::kNone);
  EXPECT_EQ(s.observe(r, 4 * kS - jitter, 0.1), AlertTransition::kResolved);
  AlertState early;
  ASSERT_EQ(early.observe(r, 0, 0.5), AlertTransition::kPending);
  EXPECT_EQ(early.observe(r, 2 * kS - 100'000'000, 0.5),
            AlertTransition::kNone);  // 100 ms short: not yet
}

TEST(AlertStateTest, ForZeroFiresOnFirstBreach) {
  AlertState s;
  const auto r = rule(0.3, 0);
  EXPECT_EQ(s.observe(r, kS, 0.31), AlertTransition::kFiring);
  EXPECT_EQ(s.phase(), AlertPhase::kFiring);
  EXPECT_EQ(s.active_since_ns(), kS);
}

TEST(AlertStateTest, RecoveryWhilePendingCancelsWithoutFiring) {
  AlertState s;
  const auto r = rule(0.3, 5);
  auto ts = feed(s, r, {0.5, 0.5, 0.5, 0.2, 0.5, 0.5});
  EXPECT_EQ(ts[3], AlertTransition::kCancelled);
  EXPECT_EQ(count(ts, AlertTransition::kFiring), 0u);
  EXPECT_EQ(s.phase(), AlertPhase::kPending);
  EXPECT_EQ(s.active_since_ns(), 5 * kS);  // pending restarted at the new breach
}

TEST(AlertStateTest, ExactlyAtThresholdIsNotABreach) {
  AlertState s;
  const auto r = rule(0.3, 0);
  EXPECT_EQ(s.observe(r, kS, 0.3), AlertTransition::kNone);
  AlertRule below = rule(0.3, 0);
  below.comparison = AlertComparison::kBelow;
  EXPECT_EQ(s.observe(below, 2 * kS, 0.3), AlertTransition::kNone);
  EXPECT_EQ(s.observe(below, 3 * kS, 0.29), AlertTransition::kFiring);
}

TEST(AlertStateTest, BelowRulesMirrorAboveRules) {
  AlertState s;
  AlertRule r = rule(5.0, 2, 0, 6.0);  // steps_per_second below 5, clears at 6
  r.comparison = AlertComparison::kBelow;
  auto ts = feed(s, r, {10, 4, 4, 4, 5.5, 5.9, 6.0});
  EXPECT_EQ(ts[1], AlertTransition::kPending);
  EXPECT_EQ(ts[3], AlertTransition::kFiring);
  EXPECT_EQ(ts[4], AlertTransition::kNone);  // 5.5 is in the band: still firing
  EXPECT_EQ(ts[5], AlertTransition::kNone);
  EXPECT_EQ(ts[6], AlertTransition::kResolved);
}

TEST(AlertStateTest, KeepFiringForHoldsThroughShortRecoveries) {
  AlertState s;
  const auto r = rule(0.3, 0, 3);
  auto ts = feed(s, r, {0.5, 0.1, 0.1, 0.5, 0.1, 0.1, 0.1});
  EXPECT_EQ(ts[0], AlertTransition::kFiring);
  // Recovered at t=2,3 (only 1 s), breach again at t=4, recovered from t=5.
  EXPECT_EQ(count(ts, AlertTransition::kResolved), 0u);
  EXPECT_EQ(s.phase(), AlertPhase::kFiring);
  EXPECT_EQ(s.observe(r, 8 * kS, 0.1), AlertTransition::kResolved);  // 3 s after t=5
  EXPECT_EQ(s.resolved_at_ns(), 8 * kS);
}

TEST(AlertStateTest, HysteresisBandHoldsFiringAndDoesNotStartPending) {
  AlertState s;
  const auto r = rule(0.3, 0, 0, 0.2);
  EXPECT_EQ(s.observe(r, 1 * kS, 0.25), AlertTransition::kNone);  // in band, inactive: stays
  EXPECT_EQ(s.observe(r, 2 * kS, 0.35), AlertTransition::kFiring);
  EXPECT_EQ(s.observe(r, 3 * kS, 0.25), AlertTransition::kNone);  // in band, firing: stays
  EXPECT_EQ(s.observe(r, 4 * kS, 0.21), AlertTransition::kNone);
  EXPECT_EQ(s.observe(r, 5 * kS, 0.2), AlertTransition::kResolved);  // at clear: recovered
}

TEST(AlertStateTest, HysteresisBandKeepsPendingGoing) {
  AlertState s;
  const auto r = rule(0.3, 3, 0, 0.2);
  auto ts = feed(s, r, {0.4, 0.25, 0.25, 0.25});
  EXPECT_EQ(ts[0], AlertTransition::kPending);
  EXPECT_EQ(ts[3], AlertTransition::kFiring);
}

TEST(AlertStateTest, FlappingAroundTheThresholdNotifiesOnceWithHysteresis) {
  AlertState s;
  const auto r = rule(0.3, 2, 0, 0.25);
  std::vector<double> values;
  for (int i = 0; i < 200; ++i)
    values.push_back(i % 2 == 0 ? 0.32 : 0.28);  // +-0.02 around 0.3
  auto ts = feed(s, r, values);
  EXPECT_EQ(count(ts, AlertTransition::kFiring), 1u);
  EXPECT_EQ(count(ts, AlertTransition::kResolved), 0u);
  EXPECT_EQ(count(ts, AlertTransition::kPending), 1u);
  ts = feed(s, r, {0.1}, 300);
  EXPECT_EQ(ts[0], AlertTransition::kResolved);
}

TEST(AlertStateTest, FlappingWithoutHysteresisIsTamedByKeepFiringFor) {
  AlertState s;
  const auto r = rule(0.3, 0, 5);
  std::vector<double> values;
  for (int i = 0; i < 100; ++i)
    values.push_back(i % 3 == 0 ? 0.31 : 0.29);
  auto ts = feed(s, r, values);
  EXPECT_EQ(count(ts, AlertTransition::kFiring), 1u);
  EXPECT_EQ(count(ts, AlertTransition::kResolved), 0u);
}

TEST(AlertStateTest, FlappingWithNeitherFlapsAsConfigured) {
  // Without hysteresis or keep_firing_for every crossing is a transition:
  // the guard rails above are what prevent that.
  AlertState s;
  const auto r = rule(0.3, 0);
  auto ts = feed(s, r, {0.31, 0.29, 0.31, 0.29});
  EXPECT_EQ(count(ts, AlertTransition::kFiring), 2u);
  EXPECT_EQ(count(ts, AlertTransition::kResolved), 2u);
}

TEST(AlertStateTest, NaNNeverStartsAnAlert) {
  AlertState s;
  const auto r = rule(0.3, 0);
  EXPECT_EQ(s.observe(r, kS, kNaN), AlertTransition::kNone);
  AlertRule below = r;
  below.comparison = AlertComparison::kBelow;
  EXPECT_EQ(s.observe(below, 2 * kS, kNaN), AlertTransition::kNone);
  EXPECT_EQ(s.phase(), AlertPhase::kInactive);
}

TEST(AlertStateTest, NaNCancelsPendingAndResolvesFiring) {
  AlertState s;
  const auto r = rule(0.3, 2);
  EXPECT_EQ(s.observe(r, 1 * kS, 0.5), AlertTransition::kPending);
  EXPECT_EQ(s.observe(r, 2 * kS, kNaN), AlertTransition::kCancelled);
  AlertState f;
  const auto r0 = rule(0.3, 0, 2);
  EXPECT_EQ(f.observe(r0, 1 * kS, 0.5), AlertTransition::kFiring);
  EXPECT_EQ(f.observe(r0, 2 * kS, kNaN), AlertTransition::kNone);  // keep_firing_for 2 s
  EXPECT_EQ(f.observe(r0, 4 * kS, kNaN), AlertTransition::kResolved);
}

TEST(AlertStateTest, VanishResolvesFiringAtOnceAndCancelsPending) {
  AlertState s;
  const auto r = rule(0.3, 0, 60);
  ASSERT_EQ(s.observe(r, 1 * kS, 0.5), AlertTransition::kFiring);
  EXPECT_EQ(s.vanish(2 * kS), AlertTransition::kResolved);  // keep_firing_for ignored
  EXPECT_EQ(s.resolved_at_ns(), 2 * kS);
  EXPECT_EQ(s.vanish(3 * kS), AlertTransition::kNone);
  AlertState p;
  const auto slow = rule(0.3, 10);
  ASSERT_EQ(p.observe(slow, 1 * kS, 0.5), AlertTransition::kPending);
  EXPECT_EQ(p.vanish(2 * kS), AlertTransition::kCancelled);
  EXPECT_EQ(p.phase(), AlertPhase::kInactive);
}

TEST(AlertStateTest, ResolvedAlertCanFireAgainWithFreshTimes) {
  AlertState s;
  const auto r = rule(0.3, 1);
  auto ts = feed(s, r, {0.5, 0.5, 0.1});
  ASSERT_EQ(ts[1], AlertTransition::kFiring);
  ASSERT_EQ(ts[2], AlertTransition::kResolved);
  EXPECT_EQ(s.observe(r, 10 * kS, 0.5), AlertTransition::kPending);
  EXPECT_FALSE(s.fired_at_ns().has_value());
  EXPECT_FALSE(s.resolved_at_ns().has_value());
  EXPECT_EQ(s.active_since_ns(), 10 * kS);
  EXPECT_EQ(s.observe(r, 11 * kS, 0.5), AlertTransition::kFiring);
  EXPECT_EQ(s.fired_at_ns(), 11 * kS);
}

TEST(AlertStateTest, EveryPathEndsInAKnownPhase) {
  // Exhaustive over short sequences of {below clear, in band, breach, NaN}:
  // firing notifications and resolved notifications alternate, starting
  // with firing, and the phase agrees with the last notification.
  const double inputs[] = {0.1, 0.25, 0.5, kNaN};
  const auto r = rule(0.3, 1, 1, 0.2);
  for (int code = 0; code < 4 * 4 * 4 * 4 * 4 * 4; ++code) {
    AlertState s;
    int c = code;
    bool firing = false;
    for (int step = 0; step < 6; ++step) {
      const auto t = s.observe(r, (step + 1) * kS, inputs[c % 4]);
      c /= 4;
      if (t == AlertTransition::kFiring) {
        ASSERT_FALSE(firing) << "code " << code;
        firing = true;
      } else if (t == AlertTransition::kResolved) {
        ASSERT_TRUE(firing) << "code " << code;
        firing = false;
      }
      ASSERT_EQ(firing, s.phase() == AlertPhase::kFiring) << "code " << code;
    }
  }
}

}  // namespace
}  // namespace stallwatch::collector
