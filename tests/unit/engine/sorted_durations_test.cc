// SPDX-License-Identifier: MIT
#include "sorted_durations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

namespace stallwatch::collector::detail {
namespace {

SortedDurations of(std::vector<std::int64_t> v) {
  SortedDurations d;
  d.assign(std::move(v));
  return d;
}

TEST(SortedDurations, InsertKeepsOrderEraseRemovesOneOccurrence) {
  SortedDurations d;
  for (std::int64_t v : {5, 1, 3, 3, 9})
    d.insert(v);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0], 1);
  EXPECT_EQ(d[4], 9);
  EXPECT_TRUE(d.erase(3));
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d[1], 3);
  EXPECT_FALSE(d.erase(4));
  EXPECT_FALSE(d.erase(10));
  d.assign({8, 2, 6});
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], 2);
  EXPECT_EQ(d[2], 8);
  d.clear();
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(d.erase(2));
}

// A window slides over steps of jittery length: old durations leave, new
// ones land anywhere. Blocks must stay well filled (the memory per rank is
// mostly such windows), not drift to half-empty blocks of doubled capacity.
TEST(SortedDurations, StaysCompactUnderASlidingWindowOfRandomDurations) {
  std::mt19937 rng(1);
  SortedDurations d;
  std::deque<std::int64_t> fifo;
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t v =
        10'000'000 + std::uniform_int_distribution<std::int64_t>(0, 2'000'000)(rng);
    d.insert(v);
    fifo.push_back(v);
    if (fifo.size() > 8192) {
      ASSERT_TRUE(d.erase(fifo.front()));
      fifo.pop_front();
    }
  }
  ASSERT_EQ(d.size(), 8192u);
  EXPECT_LT(d.bytes(), 13 * d.size());
  std::vector<std::int64_t> sorted(fifo.begin(), fifo.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < sorted.size(); k += 97)
    ASSERT_EQ(d[k], sorted[k]);
}

// Many blocks: random inserts and erases against a sorted reference.
TEST(SortedDurations, MatchesASortedVectorUnderRandomOperations) {
  std::mt19937 rng(5);
  SortedDurations d;
  std::vector<std::int64_t> ref;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t v = std::uniform_int_distribution<std::int64_t>(0, 500)(rng);
    if (ref.size() < 1500 && (ref.empty() || std::bernoulli_distribution(0.55)(rng))) {
      d.insert(v);
      ref.insert(std::upper_bound(ref.begin(), ref.end(), v), v);
    } else {
      auto it = std::lower_bound(ref.begin(), ref.end(), v);
      const bool present = it != ref.end() && *it == v;
      ASSERT_EQ(d.erase(v), present);
      if (present) ref.erase(it);
    }
    ASSERT_EQ(d.size(), ref.size());
    if (i % 97 == 0) {
      for (std::size_t k = 0; k < ref.size(); ++k)
        ASSERT_EQ(d[k], ref[k]) << "k " << k;
    }
  }
  EXPECT_GT(d.bytes(), 1500 * sizeof(std::int64_t) / 2);
}

TEST(SortedDurations, KthOfUnionMatchesMergedOrder) {
  std::mt19937 rng(3);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::int64_t> a(std::uniform_int_distribution<int>(0, 200)(rng));
    std::vector<std::int64_t> b(std::uniform_int_distribution<int>(0, 6)(rng));
    for (auto& v : a)
      v = std::uniform_int_distribution<int>(0, 30)(rng);
    for (auto& v : b)
      v = std::uniform_int_distribution<int>(0, 30)(rng);
    std::sort(b.begin(), b.end());
    std::vector<std::int64_t> all = a;
    all.insert(all.end(), b.begin(), b.end());
    std::sort(all.begin(), all.end());
    const SortedDurations sa = of(a);
    for (std::size_t k = 0; k < all.size(); ++k) {
      ASSERT_EQ(kth_of_union(sa, b, k), all[k]) << "round " << round << " k " << k;
    }
  }
}

TEST(SortedDurations, PercentileInterpolatesLikeNumpy) {
  const SortedDurations a = of({1'000'000'000, 3'000'000'000});
  const std::vector<std::int64_t> b{2'000'000'000, 4'000'000'000};
  EXPECT_DOUBLE_EQ(percentile_seconds(a, b, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile_seconds(a, b, 0.95), 3.85);
  EXPECT_DOUBLE_EQ(percentile_seconds(a, {}, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(percentile_seconds(SortedDurations{}, b, 0.0), 2.0);
  EXPECT_TRUE(std::isnan(percentile_seconds(SortedDurations{}, {}, 0.5)));
}

}  // namespace
}  // namespace stallwatch::collector::detail
