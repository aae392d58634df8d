// SPDX-License-Identifier: MIT
// Time arithmetic on wire times: clamping and region ends saturate instead
// of overflowing (the validator fuzzer found 2^62 + 2^62).

#include "engine/time_math.h"

#include <gtest/gtest.h>

#include <limits>

namespace stallwatch::collector::detail {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(TimeMath, RegionEndsSaturateAtTheTimeLimit) {
  EXPECT_EQ(saturating_end(kTimeLimit, kTimeLimit), kTimeLimit);
  EXPECT_EQ(saturating_end(kMax, kMax), kTimeLimit);
  EXPECT_EQ(saturating_end(kTimeLimit - 5, 10), kTimeLimit);
  EXPECT_EQ(saturating_end(kTimeLimit - 10, 10), kTimeLimit);
  EXPECT_EQ(saturating_end(kMin, kMax), 0);  // -2^62 + 2^62
  EXPECT_EQ(saturating_end(100, 20), 120);
  EXPECT_EQ(saturating_end(100, -20), 100);  // a negative duration is 0
}

TEST(TimeMath, GridRoundsTowardsNegativeAndPositiveInfinity) {
  EXPECT_EQ(floor_grid(-1, 10), -10);
  EXPECT_EQ(ceil_grid(-1, 10), 0);
  EXPECT_EQ(floor_grid(10, 10), 10);
  EXPECT_EQ(ceil_grid(11, 10), 20);
}

}  // namespace
}  // namespace stallwatch::collector::detail
