// SPDX-License-Identifier: MIT
#include "clock_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;
// A CUPTI-like clock: Unix time of 2024 in ns.
constexpr std::int64_t kSourceOrigin = 1'700'000'000 * kSecond;

// agent = offset + source_delta * (1 + ppm * 1e-6), exact in integers for the test.
std::int64_t agent_of(std::int64_t source, std::int64_t offset, double ppm) {
  const std::int64_t delta = source - kSourceOrigin;
  return kSourceOrigin + offset + delta + std::llround(static_cast<double>(delta) * ppm * 1e-6);
}

TEST(ClockMap, WithoutSamplesMapsUnchanged) {
  const ClockMap map;
  EXPECT_EQ(map.to_agent(kSourceOrigin), kSourceOrigin);
  EXPECT_EQ(map.size(), 0u);
}

TEST(ClockMap, OneSampleAppliesItsOffsetEverywhere) {
  ClockMap map;
  ASSERT_TRUE(map.add_sample(kSourceOrigin, kSourceOrigin - 37 * kSecond));
  EXPECT_EQ(map.to_agent(kSourceOrigin + 5 * kMs), kSourceOrigin - 37 * kSecond + 5 * kMs);
  EXPECT_EQ(map.to_agent(kSourceOrigin - 5 * kMs), kSourceOrigin - 37 * kSecond - 5 * kMs);
}

TEST(ClockMap, FollowsOffsetAndDriftBetweenAndBeyondSamples) {
  constexpr std::int64_t kOffset = -3 * kSecond + 123'456;
  constexpr double kPpm = 80.0;
  ClockMap map;
  for (int i = 0; i <= 20; ++i) {
    const std::int64_t source = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(source, agent_of(source, kOffset, kPpm)));
  }
  for (std::int64_t t = 0; t <= 2 * kSecond; t += 7 * kMs + 311) {
    const std::int64_t source = kSourceOrigin + t;
    EXPECT_NEAR(map.to_agent(source), agent_of(source, kOffset, kPpm), 2) << "between samples";
  }
  // 1 s past the newest sample and 1 s before the oldest: the history's slope.
  for (const std::int64_t t : {3 * kSecond, -1 * kSecond}) {
    const std::int64_t source = kSourceOrigin + t;
    EXPECT_NEAR(map.to_agent(source), agent_of(source, kOffset, kPpm), 1000) << "extrapolated";
  }
}

TEST(ClockMap, InterpolationFollowsASlewThatChangesRate) {
  // The other clock runs 500 ppm fast for a second, then at the agent's rate.
  ClockMap map;
  std::int64_t agent = kSourceOrigin;
  for (int i = 0; i <= 20; ++i) {
    const std::int64_t source = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(source, agent));
    agent += i < 10 ? 100 * kMs + 50'000 : 100 * kMs;
  }
  EXPECT_NEAR(map.to_agent(kSourceOrigin + 550 * kMs), kSourceOrigin + 550 * kMs + 275'000, 2);
  EXPECT_NEAR(map.to_agent(kSourceOrigin + 1550 * kMs), kSourceOrigin + 1550 * kMs + 500'000, 2);
}

TEST(ClockMap, AStepOfTheOtherClockRestartsTheMapping) {
  ClockMap map;
  for (int i = 0; i < 5; ++i) {
    const std::int64_t source = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(source, source + kSecond));
  }
  // NTP stepped CLOCK_REALTIME back by 4 s: same agent progress, source jumped.
  const std::int64_t stepped = kSourceOrigin + 500 * kMs - 4 * kSecond;
  const std::int64_t agent = kSourceOrigin + 500 * kMs + kSecond;
  ASSERT_TRUE(map.add_sample(stepped, agent));
  EXPECT_EQ(map.resets(), 1u);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.to_agent(stepped + 20 * kMs), agent + 20 * kMs);
}

TEST(ClockMap, IgnoresASampleOlderThanTheNewest) {
  ClockMap map;
  ASSERT_TRUE(map.add_sample(kSourceOrigin, kSourceOrigin));
  ASSERT_TRUE(map.add_sample(kSourceOrigin + 100 * kMs, kSourceOrigin + 100 * kMs));
  EXPECT_FALSE(map.add_sample(kSourceOrigin + 50 * kMs, kSourceOrigin + 50 * kMs + 10));
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.resets(), 0u);
}

TEST(ClockMap, KeepsTheNewestSamplesOnly) {
  ClockMap map;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t source = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(source, source + 7));
  }
  EXPECT_EQ(map.size(), ClockMap::kMaxSamples);
  EXPECT_EQ(map.to_agent(kSourceOrigin + 5 * kSecond + 3), kSourceOrigin + 5 * kSecond + 10);
  EXPECT_EQ(map.to_agent(kSourceOrigin + 250 * kMs), kSourceOrigin + 250 * kMs + 7);
}

TEST(ClockMap, BoundsTheExtrapolationSlope) {
  ClockMap map;
  ASSERT_TRUE(map.add_sample(kSourceOrigin, kSourceOrigin));
  // 2000 ppm apart over 100 ms: under the step threshold, over the slope bound.
  ASSERT_TRUE(map.add_sample(kSourceOrigin + 100 * kMs, kSourceOrigin + 100 * kMs + 200'000));
  const std::int64_t newest_agent = kSourceOrigin + 100 * kMs + 200'000;
  EXPECT_NEAR(map.to_agent(kSourceOrigin + 1100 * kMs),
              newest_agent + kSecond + std::llround(kSecond * ClockMap::kMaxSlopeError), 1);
}

TEST(ClockMap, MeasuresTheRateOfAClockCountingOtherUnits) {
  // Kineto's timestamp callback: CUPTI's clock becomes a 2.5 GHz cycle
  // counter. Samples 100 ms apart must give a mapping, not a reset each.
  constexpr std::int64_t kTicksOrigin = 987'654'321'000;
  ClockMap map;
  for (int i = 0; i <= 10; ++i) {
    const std::int64_t agent = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(kTicksOrigin + std::int64_t{i} * 250'000'000, agent));
  }
  EXPECT_EQ(map.resets(), 0u);
  EXPECT_EQ(map.size(), 11u);
  // 50 ms of work between samples, and 300 ms past the newest.
  EXPECT_NEAR(map.to_agent(kTicksOrigin + 125'000'000) - map.to_agent(kTicksOrigin), 50 * kMs, 2);
  EXPECT_NEAR(map.to_agent(kTicksOrigin + 3'250'000'000), kSourceOrigin + 1300 * kMs, 1000);
}

TEST(ClockMap, IsMonotonic) {
  ClockMap map;
  std::int64_t agent = kSourceOrigin;
  for (int i = 0; i < 30; ++i) {
    const std::int64_t source = kSourceOrigin + i * 100 * kMs;
    ASSERT_TRUE(map.add_sample(source, agent));
    agent += 100 * kMs + (i % 3 - 1) * 30'000;
  }
  std::int64_t previous = map.to_agent(kSourceOrigin - kSecond);
  for (std::int64_t t = -kSecond; t < 4 * kSecond; t += 997'003) {
    const std::int64_t mapped = map.to_agent(kSourceOrigin + t);
    EXPECT_GE(mapped, previous);
    previous = mapped;
  }
}

}  // namespace
}  // namespace stallwatch::agent
