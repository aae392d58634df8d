// SPDX-License-Identifier: MIT
#include "engine/span_union.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

std::vector<std::pair<std::int64_t, std::int64_t>> pairs(const SpanUnion& u) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const Span& s : u.spans())
    out.emplace_back(s.start, s.end);
  return out;
}

using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

TEST(SpanUnion, AppendsExtendsAndMergesTouchingSpans) {
  SpanUnion u;
  EXPECT_TRUE(u.empty());
  u.add(10, 20);
  u.add(20, 30);  // touches: one span
  u.add(25, 28);  // inside
  u.add(40, 50);
  u.add(45, 60);  // extends the last
  EXPECT_EQ(pairs(u), (Pairs{{10, 30}, {40, 60}}));
  EXPECT_EQ(u.size(), 2u);
  u.clear();
  EXPECT_TRUE(u.empty());
}

TEST(SpanUnion, OutOfOrderIntervalsInsertMergeOrFallInside) {
  SpanUnion u;
  u.add(100, 110);
  u.add(200, 210);
  u.add(300, 310);
  u.add(10, 20);    // before everything
  u.add(150, 160);  // between
  u.add(105, 108);  // inside an earlier span
  EXPECT_EQ(pairs(u), (Pairs{{10, 20}, {100, 110}, {150, 160}, {200, 210}, {300, 310}}));
  u.add(110, 205);  // bridges three spans
  EXPECT_EQ(pairs(u), (Pairs{{10, 20}, {100, 210}, {300, 310}}));
  u.add(0, 400);
  EXPECT_EQ(pairs(u), (Pairs{{0, 400}}));
}

// A second thread replaying the same stretch as the first: every interval
// lands next to the previous out-of-order one.
TEST(SpanUnion, ReplayedStretchesFoldIntoTheFirst) {
  SpanUnion u;
  for (std::int64_t i = 0; i < 50; ++i)
    u.add(i * 10, i * 10 + 5);
  for (std::int64_t i = 0; i < 50; ++i)
    u.add(i * 10 + 1, i * 10 + 4);
  for (std::int64_t i = 0; i < 50; ++i)
    u.add(i * 10 + 3, i * 10 + 7);
  ASSERT_EQ(u.size(), 50u);
  EXPECT_EQ(u.spans()[7].start, 70);
  EXPECT_EQ(u.spans()[7].end, 77);
}

TEST(SpanUnion, MatchesBruteForceOnRandomIntervals) {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    constexpr std::int64_t kSpan = 2000;
    std::vector<char> ref(kSpan, 0);
    SpanUnion u;
    const bool mostly_in_order = seed % 2 == 0;
    std::int64_t cursor = 0;
    for (int op = 0; op < 300; ++op) {
      std::int64_t a = std::uniform_int_distribution<std::int64_t>(0, kSpan - 2)(rng);
      if (mostly_in_order && op % 7 != 0) a = std::min(kSpan - 2, cursor);
      const std::int64_t len = std::uniform_int_distribution<std::int64_t>(1, 30)(rng);
      const std::int64_t b = std::min(kSpan, a + len);
      cursor = b + std::uniform_int_distribution<std::int64_t>(-3, 5)(rng);
      u.add(a, b);
      for (std::int64_t t = a; t < b; ++t)
        ref[static_cast<std::size_t>(t)] = 1;
    }
    std::vector<char> got(kSpan, 0);
    std::int64_t prev_end = -1;
    for (const Span& s : u.spans()) {
      ASSERT_LT(s.start, s.end);
      ASSERT_GT(s.start, prev_end) << "spans overlap or touch";
      prev_end = s.end;
      for (std::int64_t t = s.start; t < s.end; ++t)
        got[static_cast<std::size_t>(t)] = 1;
    }
    EXPECT_EQ(got, ref);
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
