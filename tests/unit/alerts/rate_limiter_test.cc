// SPDX-License-Identifier: MIT
#include "alerts/rate_limiter.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

TEST(RateLimiterTest, ZeroMeansUnlimited) {
  RateLimiter r(0);
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(r.allow(0));
}

TEST(RateLimiterTest, AllowsABurstThenTheAverageRate) {
  RateLimiter r(6);  // 6 a minute: a burst of 6, then one every 10 s
  for (int i = 0; i < 6; ++i)
    EXPECT_TRUE(r.allow(0)) << i;
  EXPECT_FALSE(r.allow(0));
  EXPECT_FALSE(r.allow(9 * kS));
  EXPECT_TRUE(r.allow(10 * kS));
  EXPECT_FALSE(r.allow(11 * kS));
  EXPECT_TRUE(r.allow(30 * kS));
  EXPECT_TRUE(r.allow(30 * kS));  // 20 s saved up two
  EXPECT_FALSE(r.allow(30 * kS));
}

TEST(RateLimiterTest, FractionalRatesStillAllowOne) {
  RateLimiter r(0.5);  // one every 2 minutes
  EXPECT_TRUE(r.allow(0));
  EXPECT_FALSE(r.allow(60 * kS));
  EXPECT_TRUE(r.allow(120 * kS));
}

TEST(RateLimiterTest, IdleTimeDoesNotBuildAnUnboundedBurst) {
  RateLimiter r(2);
  EXPECT_TRUE(r.allow(0));
  const std::int64_t later = 3600 * kS;
  EXPECT_TRUE(r.allow(later));
  EXPECT_TRUE(r.allow(later));
  EXPECT_FALSE(r.allow(later));
}

}  // namespace
}  // namespace stallwatch::collector
