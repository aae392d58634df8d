// SPDX-License-Identifier: MIT
#include "pending_histograms.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace stallwatch::collector::detail {
namespace {

TEST(PendingHistograms, CellsAreCreatedZeroedAtEitherEnd) {
  PendingHistograms p;
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.find(5), nullptr);
  p.at(5)[3] = 7;
  EXPECT_EQ(p.first(), 5);
  EXPECT_EQ(p.size(), 1u);
  p.at(8)[1] = 2;  // creates 6, 7, 8
  EXPECT_EQ(p.size(), 4u);
  p.at(2)[63] = 9;  // creates 2, 3, 4 in front
  EXPECT_EQ(p.first(), 2);
  EXPECT_EQ(p.size(), 7u);
  ASSERT_NE(p.find(5), nullptr);
  EXPECT_EQ((*p.find(5))[3], 7);
  EXPECT_EQ((*p.find(8))[1], 2);
  EXPECT_EQ((*p.find(2))[63], 9);
  EXPECT_EQ((*p.find(6))[3], 0);
  EXPECT_EQ((*p.find(3))[63], 0);
  EXPECT_EQ(p.find(9), nullptr);
  EXPECT_EQ(p.find(1), nullptr);
  p.drop_before(6);
  EXPECT_EQ(p.first(), 6);
  EXPECT_EQ(p.find(5), nullptr);
  EXPECT_EQ((*p.find(8))[1], 2);
  p.drop_before(100);
  EXPECT_TRUE(p.empty());
  p.at(-3)[0] = 1;
  EXPECT_EQ(p.first(), -3);
}

TEST(PendingHistograms, GivesBackWhatABurstMadeItGrowTo) {
  PendingHistograms p;
  p.at(0);
  p.at(4000);
  const std::size_t burst = p.bytes();
  EXPECT_GE(burst, 4001 * sizeof(MaskHistogram));
  p.drop_before(3998);
  EXPECT_LT(p.bytes(), burst / 8);
  EXPECT_NE(p.find(3999), nullptr);
  p.drop_before(5000);
  EXPECT_LT(p.bytes(), burst / 8);
}

TEST(PendingHistograms, MatchesAMapUnderRandomOperations) {
  std::mt19937 rng(3);
  PendingHistograms p;
  std::map<std::int64_t, std::int64_t> ref;  // cell -> value in bin 1
  std::int64_t lo = 0;
  for (int i = 0; i < 4000; ++i) {
    const int op = std::uniform_int_distribution<int>(0, 9)(rng);
    if (op < 8) {
      const std::int64_t cell = lo + std::uniform_int_distribution<std::int64_t>(-3, 12)(rng);
      p.at(cell)[1] += i;
      if (ref.empty()) {
        ref[cell] = 0;
      } else {
        for (std::int64_t k = std::min(cell, ref.begin()->first);
             k <= std::max(cell, ref.rbegin()->first); ++k) {
          ref.try_emplace(k, 0);
        }
      }
      ref[cell] += i;
    } else {
      lo += std::uniform_int_distribution<std::int64_t>(0, 4)(rng);
      p.drop_before(lo);
      ref.erase(ref.begin(), ref.lower_bound(lo));
    }
    ASSERT_EQ(p.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(p.first(), ref.begin()->first);
    }
    for (const auto& [cell, v] : ref) {
      ASSERT_NE(p.find(cell), nullptr);
      ASSERT_EQ((*p.find(cell))[1], v);
    }
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
