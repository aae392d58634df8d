// SPDX-License-Identifier: MIT
#include "spark_history.h"

#include <gtest/gtest.h>

namespace stallwatch::tui {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;

SeriesView series(const std::string& job, std::vector<double> t,
                  std::vector<std::optional<double>> rank0) {
  SeriesView s;
  s.job = job;
  s.t = std::move(t);
  s.ranks[0] = std::move(rank0);
  return s;
}

TEST(SparkHistoryTest, SeedAndTicksAgreeOnTheSameWindowEnds) {
  SparkHistory h;
  h.reset("j");
  h.seed(
      series("j", {1'700'000'000.0, 1'700'000'001.0, 1'700'000'002.0}, {0.1, 0.2, std::nullopt}));
  // A tick for the newest seeded point replaces it; the next second extends.
  h.observe(0, kT0 + 2 * kS, 0.3);
  h.observe(0, kT0 + 3 * kS, 0.4);
  h.observe(0, kT0 + 3 * kS, 0.4);  // the same window end twice (two ticks per second)
  const auto v = h.values(0);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(*v[0], 0.1);
  EXPECT_DOUBLE_EQ(*v[2], 0.3);
  EXPECT_DOUBLE_EQ(*v[3], 0.4);
  EXPECT_TRUE(h.seeded());
}

TEST(SparkHistoryTest, MissingSecondsBecomeGaps) {
  SparkHistory h;
  h.reset("j");
  h.observe(1, kT0, 0.5);
  h.observe(1, kT0 + 3 * kS, 0.7);
  const auto v = h.values(1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_FALSE(v[1].has_value());
  EXPECT_FALSE(v[2].has_value());
  EXPECT_TRUE(h.values(2).empty());
}

TEST(SparkHistoryTest, ASeriesOfAnotherJobIsIgnoredAndResetForgets) {
  SparkHistory h;
  h.reset("j");
  h.seed(series("other", {1.0}, {0.5}));
  EXPECT_TRUE(h.values(0).empty());
  EXPECT_FALSE(h.seeded());
  h.observe(0, kT0, 0.5);
  h.reset("k");
  EXPECT_TRUE(h.values(0).empty());
  EXPECT_EQ(h.job(), "k");
}

TEST(SparkHistoryTest, BoundedByCapacity) {
  SparkHistory h(10);
  h.reset("j");
  for (int i = 0; i < 100; ++i)
    h.observe(0, kT0 + i * kS, i / 100.0);
  const auto v = h.values(0);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_DOUBLE_EQ(*v.back(), 0.99);
  // A jump far ahead does not leave a long run of gaps behind.
  h.observe(0, kT0 + 1000 * kS, 1.0);
  EXPECT_EQ(h.values(0).size(), 1u);
}

}  // namespace
}  // namespace stallwatch::tui
