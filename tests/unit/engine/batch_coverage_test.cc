// SPDX-License-Identifier: MIT
#include "batch_coverage.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

// The mask at each unit of [0, span) that `bps` describes; checks the list
// is sorted, coalesced and ends with mask 0.
std::vector<ClassMask> paint(std::span<const Breakpoint> bps, std::int64_t span) {
  std::vector<ClassMask> out(static_cast<std::size_t>(span), 0);
  for (std::size_t i = 0; i < bps.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(bps[i - 1].t, bps[i].t);
      EXPECT_NE(bps[i - 1].mask, bps[i].mask);
    }
    const std::int64_t end = i + 1 < bps.size() ? bps[i + 1].t : span;
    for (std::int64_t t = bps[i].t; t < end; ++t)
      out[static_cast<std::size_t>(t)] = bps[i].mask;
  }
  if (!bps.empty()) {
    EXPECT_EQ(bps.back().mask, 0);
  }
  return out;
}

TEST(BatchCoverage, OrsTheMasksOfOverlappingIntervals) {
  BatchCoverage b;
  EXPECT_TRUE(b.empty());
  b.add(10, 20, 1);
  b.add(15, 30, 2);
  b.add(30, 40, 2);
  b.add(50, 60, 4);
  EXPECT_FALSE(b.empty());
  const auto bps = b.take();
  const std::vector<Breakpoint> want{{10, 1}, {15, 3}, {20, 2}, {40, 0}, {50, 4}, {60, 0}};
  ASSERT_EQ(bps.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(bps[i].t, want[i].t) << i;
    EXPECT_EQ(bps[i].mask, want[i].mask) << i;
  }
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.take().empty());
}

TEST(BatchCoverage, EdgesOfDifferentMasksAtTheSameInstant) {
  BatchCoverage b;
  b.add(0, 10, 1);
  b.add(10, 20, 2);  // starts where the other ends
  b.add(0, 20, 4);   // shares both outer edges
  const auto bps = b.take();
  const auto m = paint(bps, 25);
  EXPECT_EQ(m[0], 5);
  EXPECT_EQ(m[9], 5);
  EXPECT_EQ(m[10], 6);
  EXPECT_EQ(m[19], 6);
  EXPECT_EQ(m[20], 0);
  EXPECT_EQ(bps.size(), 3u);
}

TEST(BatchCoverage, MatchesBruteForceOnRandomBatches) {
  constexpr std::int64_t kSpan = 3000;
  BatchCoverage b;  // reused across batches, like the engine's
  for (std::uint32_t seed = 1; seed <= 80; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<ClassMask> ref(kSpan, 0);
    const int masks = 1 + static_cast<int>(seed % 6);
    const int count = std::uniform_int_distribution<int>(1, 400)(rng);
    for (int i = 0; i < count; ++i) {
      const std::int64_t a = std::uniform_int_distribution<std::int64_t>(0, kSpan - 2)(rng);
      const std::int64_t b_end = std::min(
          kSpan, a + std::uniform_int_distribution<std::int64_t>(1, seed % 3 ? 20 : 400)(rng));
      const auto m = static_cast<ClassMask>(
          1 + std::uniform_int_distribution<int>(0, masks * 10)(rng) % (kMaskBins - 1));
      b.add(a, b_end, m);
      for (std::int64_t t = a; t < b_end; ++t)
        ref[static_cast<std::size_t>(t)] |= m;
    }
    EXPECT_EQ(paint(b.take(), kSpan), ref);
    EXPECT_TRUE(b.empty());
  }
  EXPECT_GT(b.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector::detail
