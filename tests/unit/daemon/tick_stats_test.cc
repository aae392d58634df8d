// SPDX-License-Identifier: MIT
#include "tick_stats.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

TEST(TickStats, EmptyIsZero) {
  TickStats s;
  EXPECT_EQ(s.wall_quantile(0.99), 0);
  EXPECT_EQ(s.cpu_quantile(0.5), 0);
  EXPECT_EQ(s.wall_max(), 0);
}

TEST(TickStats, NearestRankPercentiles) {
  TickStats s(1000);
  for (int i = 1; i <= 100; ++i)
    s.add(i / 1000.0, i / 10000.0);
  EXPECT_DOUBLE_EQ(s.wall_quantile(0.5), 0.050);
  EXPECT_DOUBLE_EQ(s.wall_quantile(0.99), 0.099);
  EXPECT_DOUBLE_EQ(s.wall_quantile(1.0), 0.100);
  EXPECT_DOUBLE_EQ(s.cpu_quantile(0.99), 0.0099);
  EXPECT_DOUBLE_EQ(s.wall_last(), 0.100);
  EXPECT_DOUBLE_EQ(s.cpu_last(), 0.0100);
}

TEST(TickStats, KeepsOnlyTheNewestSamplesButTheMaxForever) {
  TickStats s(10);
  s.add(5.0, 1.0);  // one slow tick, then many fast ones push it out
  for (int i = 0; i < 10; ++i)
    s.add(0.001, 0.0005);
  EXPECT_DOUBLE_EQ(s.wall_quantile(1.0), 0.001);
  EXPECT_DOUBLE_EQ(s.wall_max(), 5.0);
}

TEST(TickStats, ThreadCpuClockAdvancesWithWork) {
  const double before = thread_cpu_seconds();
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i)
    x = x + i * 1e-9;
  EXPECT_GT(thread_cpu_seconds(), before);
}

}  // namespace
}  // namespace stallwatch::collector
