#include "engine/coverage_map.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

struct Change {
  std::int64_t start, end;
  ClassMask old_mask, new_mask;
};

std::vector<Change> add(CoverageMap& map, std::int64_t a, std::int64_t b, ClassMask m) {
  std::vector<Change> out;
  map.add(a, b, m, [&](std::int64_t s, std::int64_t e, ClassMask o, ClassMask n) {
    out.push_back({s, e, o, n});
  });
  return out;
}

TEST(CoverageMap, StartsEmpty) {
  CoverageMap map;
  EXPECT_EQ(map.mask_at(0), 0);
  EXPECT_EQ(map.mask_at(CoverageMap::kMaxTime - 1), 0);
  EXPECT_EQ(map.breakpoints(), 1u);
}

TEST(CoverageMap, AddReportsEveryChangedPieceOnce) {
  CoverageMap map;
  auto c1 = add(map, 10, 20, 0b01);
  ASSERT_EQ(c1.size(), 1u);
  EXPECT_EQ(c1[0].start, 10);
  EXPECT_EQ(c1[0].end, 20);
  EXPECT_EQ(c1[0].old_mask, 0);
  EXPECT_EQ(c1[0].new_mask, 0b01);

  auto c2 = add(map, 5, 25, 0b10);
  ASSERT_EQ(c2.size(), 3u);
  EXPECT_EQ(c2[0].start, 5);
  EXPECT_EQ(c2[0].new_mask, 0b10);
  EXPECT_EQ(c2[1].start, 10);
  EXPECT_EQ(c2[1].end, 20);
  EXPECT_EQ(c2[1].old_mask, 0b01);
  EXPECT_EQ(c2[1].new_mask, 0b11);
  EXPECT_EQ(c2[2].start, 20);
  EXPECT_EQ(c2[2].end, 25);
}

TEST(CoverageMap, AddingCoveredTimeChangesNothing) {
  CoverageMap map;
  add(map, 0, 100, 0b11);
  EXPECT_TRUE(add(map, 10, 20, 0b01).empty());
  EXPECT_TRUE(add(map, 20, 20, 0b100).empty());
  EXPECT_TRUE(add(map, 30, 40, 0).empty());
}

TEST(CoverageMap, AdjacentEqualPiecesMerge) {
  CoverageMap map;
  add(map, 0, 10, 1);
  add(map, 10, 20, 1);
  add(map, 20, 30, 1);
  EXPECT_EQ(map.breakpoints(), 3u);  // -inf, 0, 30
  EXPECT_EQ(map.mask_at(15), 1);
  EXPECT_EQ(map.mask_at(30), 0);
}

TEST(CoverageMap, ForEachWalksPiecesClippedToTheRange) {
  CoverageMap map;
  add(map, 10, 20, 1);
  add(map, 15, 30, 2);
  std::vector<Change> seen;
  map.for_each(12, 25, [&](std::int64_t s, std::int64_t e, ClassMask m) {
    seen.push_back({s, e, m, m});
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].start, 12);
  EXPECT_EQ(seen[0].end, 15);
  EXPECT_EQ(seen[0].old_mask, 1);
  EXPECT_EQ(seen[1].old_mask, 3);
  EXPECT_EQ(seen[2].start, 20);
  EXPECT_EQ(seen[2].end, 25);
  EXPECT_EQ(seen[2].old_mask, 2);
}

TEST(CoverageMap, TrimForgetsThePastButKeepsTheMaskAtTheCut) {
  CoverageMap map;
  add(map, 0, 50, 1);
  add(map, 60, 70, 2);
  map.trim_before(40);
  EXPECT_EQ(map.mask_at(45), 1);
  EXPECT_EQ(map.mask_at(55), 0);
  EXPECT_EQ(map.mask_at(65), 2);
  EXPECT_LE(map.breakpoints(), 4u);
  auto c = add(map, 40, 80, 4);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front().start, 40);
  EXPECT_EQ(c.front().old_mask, 1);
}

// Random unions against a per-unit reference, with enough pieces to split
// and merge many chunks; checks masks, reported changes and trimming.
TEST(CoverageMap, MatchesBruteForceOnRandomUnions) {
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    constexpr std::int64_t kSpan = 3000;
    std::vector<ClassMask> ref(kSpan, 0);
    CoverageMap map;
    std::int64_t trimmed = 0;
    for (int op = 0; op < 1500; ++op) {
      if (op % 300 == 299) {
        trimmed += std::uniform_int_distribution<std::int64_t>(0, 200)(rng);
        map.trim_before(trimmed);
      }
      const std::int64_t a = std::uniform_int_distribution<std::int64_t>(trimmed, kSpan - 1)(rng);
      const std::int64_t len = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
      const std::int64_t b = std::min(kSpan, a + len);
      const auto m = static_cast<ClassMask>(1u << std::uniform_int_distribution<int>(0, 5)(rng));
      std::vector<std::int64_t> changed(kSpan, 0);
      std::int64_t last_end = a;
      map.add(a, b, m, [&](std::int64_t s, std::int64_t e, ClassMask o, ClassMask n) {
        ASSERT_GE(s, last_end);
        last_end = e;
        for (std::int64_t t = s; t < e; ++t) {
          ASSERT_EQ(o, ref[t]) << "t=" << t;
          ASSERT_EQ(n, ref[t] | m);
          changed[t] = 1;
        }
      });
      for (std::int64_t t = a; t < b; ++t) {
        ASSERT_EQ(changed[t] == 1, (ref[t] | m) != ref[t]) << "t=" << t;
        ref[t] |= m;
      }
    }
    std::int64_t covered = trimmed;
    ClassMask prev = 0xFF;
    map.for_each(trimmed, kSpan, [&](std::int64_t s, std::int64_t e, ClassMask m) {
      ASSERT_EQ(s, covered);
      ASSERT_NE(m, prev) << "unmerged neighbours at " << s;
      prev = m;
      for (std::int64_t t = s; t < e; ++t)
        ASSERT_EQ(m, ref[t]) << "t=" << t;
      covered = e;
    });
    EXPECT_EQ(covered, kSpan);
    EXPECT_GT(map.bytes(), 0u);
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
