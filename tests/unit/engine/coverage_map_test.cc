// SPDX-License-Identifier: MIT
#include "coverage_map.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <span>
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

TEST(CoverageMap, AppendsOnlyAfterEverythingKnownWithNoClassAtTheEnd) {
  CoverageMap map;
  const std::vector<Breakpoint> first = {{10, 0b01}, {20, 0b11}, {30, 0}};
  EXPECT_TRUE(map.appends(first));
  EXPECT_FALSE(map.appends(std::span<const Breakpoint>(first.data(), 1)));
  map.append_unreported(first);
  EXPECT_EQ(map.mask_at(15), 0b01);
  EXPECT_EQ(map.mask_at(25), 0b11);
  EXPECT_EQ(map.mask_at(30), 0);

  // Starting at the last breakpoint (touching) appends and coalesces with
  // nothing; starting inside known time does not append.
  const std::vector<Breakpoint> touching = {{30, 0b10}, {40, 0}};
  const std::vector<Breakpoint> inside = {{25, 0b100}, {40, 0}};
  EXPECT_TRUE(map.appends(touching));
  EXPECT_FALSE(map.appends(inside));
  map.append_unreported(touching);
  EXPECT_EQ(map.mask_at(29), 0b11);
  EXPECT_EQ(map.mask_at(30), 0b10);
  EXPECT_EQ(map.mask_at(40), 0);

  // A list whose first piece has the class of the piece before the end is
  // coalesced with it, as merge() would leave it.
  CoverageMap merged;
  add(merged, 0, 10, 0b01);
  CoverageMap appended;
  add(appended, 0, 10, 0b01);
  const std::vector<Breakpoint> same = {{10, 0b01}, {20, 0}};
  ASSERT_TRUE(appended.appends(same));
  appended.append_unreported(same);
  add(merged, 10, 20, 0b01);
  EXPECT_EQ(appended.breakpoints(), merged.breakpoints());
  EXPECT_EQ(appended.mask_at(15), 0b01);
  EXPECT_EQ(appended.mask_at(20), 0);
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

// Whole breakpoint lists (as BatchCoverage makes them) merged at random
// places, before, inside and after what is known, against a per-unit
// reference: masks, reported changes, coalescing and trimming.
TEST(CoverageMap, MergeMatchesBruteForceOnRandomLists) {
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    constexpr std::int64_t kSpan = 4000;
    std::vector<ClassMask> ref(kSpan, 0);
    CoverageMap map;
    std::vector<Breakpoint> scratch;
    std::int64_t trimmed = 0;
    std::int64_t frontier = 0;  // batches mostly move forward
    for (int op = 0; op < 200; ++op) {
      if (op % 40 == 39) {
        trimmed = std::min<std::int64_t>(
            kSpan - 100, trimmed + std::uniform_int_distribution<std::int64_t>(0, 300)(rng));
        map.trim_before(trimmed);
      }
      std::int64_t t = std::max(trimmed, frontier - std::uniform_int_distribution<std::int64_t>(
                                                        0, op % 3 == 0 ? 600 : 5)(rng));
      t = std::min(t, kSpan - 2);
      std::vector<Breakpoint> list;
      std::vector<ClassMask> add(kSpan, 0);
      const int pieces = std::uniform_int_distribution<int>(1, 40)(rng);
      for (int i = 0; i < pieces && t < kSpan - 1; ++i) {
        t += std::uniform_int_distribution<std::int64_t>(0, 3)(rng);
        const auto m = static_cast<ClassMask>(std::uniform_int_distribution<int>(0, 7)(rng));
        if (t >= kSpan - 1 || (!list.empty() && list.back().mask == m) ||
            (list.empty() && m == 0)) {
          continue;
        }
        if (!list.empty() && list.back().t == t) list.pop_back();
        if (!list.empty() && list.back().mask == m) continue;
        list.push_back(Breakpoint{t, m});
        t += std::uniform_int_distribution<std::int64_t>(1, 25)(rng);
      }
      if (list.empty()) continue;
      if (list.back().mask != 0) list.push_back(Breakpoint{std::min(t, kSpan - 1), 0});
      if (list.size() < 2 || list.back().t <= list[list.size() - 2].t) continue;
      for (std::size_t i = 0; i + 1 < list.size(); ++i) {
        for (std::int64_t u = list[i].t; u < list[i + 1].t; ++u)
          add[static_cast<std::size_t>(u)] = list[i].mask;
      }
      frontier = std::max(frontier, list.back().t);
      std::vector<char> changed(kSpan, 0);
      std::int64_t last_end = list.front().t;
      map.merge(list, scratch, [&](std::int64_t s, std::int64_t e, ClassMask o, ClassMask n) {
        ASSERT_GE(s, last_end);
        ASSERT_LT(s, e);
        last_end = e;
        for (std::int64_t u = s; u < e; ++u) {
          const auto k = static_cast<std::size_t>(u);
          ASSERT_EQ(o, ref[k]) << "t=" << u;
          ASSERT_EQ(n, ref[k] | add[k]);
          changed[k] = 1;
        }
      });
      for (std::int64_t u = trimmed; u < kSpan; ++u) {
        const auto k = static_cast<std::size_t>(u);
        ASSERT_EQ(changed[k] == 1, (ref[k] | add[k]) != ref[k]) << "t=" << u;
        ref[k] |= add[k];
      }
      std::int64_t covered = trimmed;
      ClassMask prev = 0xFF;
      map.for_each(trimmed, kSpan, [&](std::int64_t s, std::int64_t e, ClassMask m) {
        ASSERT_EQ(s, covered);
        ASSERT_NE(m, prev) << "unmerged neighbours at " << s;
        prev = m;
        for (std::int64_t u = s; u < e; ++u)
          ASSERT_EQ(m, ref[static_cast<std::size_t>(u)]) << "t=" << u;
        covered = e;
      });
      ASSERT_EQ(covered, kSpan);
    }
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
