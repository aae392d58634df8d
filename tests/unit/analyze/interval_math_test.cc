// SPDX-License-Identifier: MIT
#include "interval_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "rank_intervals.h"

namespace stallwatch::collector {
namespace {

using V = std::vector<Interval>;

TEST(IntervalMath, NormalizeSortsMergesAndDropsEmpty) {
  V v{{30, 40}, {0, 10}, {5, 12}, {12, 15}, {20, 20}, {50, 45}};
  normalize(v);
  EXPECT_EQ(v, (V{{0, 15}, {30, 40}}));  // touching intervals join
}

TEST(IntervalMath, MeasureIntersectionAndUnion) {
  const V a{{0, 10}, {20, 30}};
  const V b{{5, 25}, {28, 40}};
  EXPECT_EQ(measure(a), 20);
  EXPECT_EQ(intersection_measure(a, b), 5 + 5 + 2);
  EXPECT_EQ(intersection_measure(b, a), 12);
  EXPECT_EQ(intersection_measure(a, {}), 0);
  V u;
  union_of(a, b, u);
  EXPECT_EQ(u, (V{{0, 40}}));
  union_of(a, {}, u);
  EXPECT_EQ(u, a);
}

TEST(IntervalMath, SplitAtCutsAStraddlingInterval) {
  V v{{0, 10}, {20, 30}, {40, 50}};
  V before;
  split_at(v, 25, before);
  EXPECT_EQ(before, (V{{0, 10}, {20, 25}}));
  EXPECT_EQ(v, (V{{25, 30}, {40, 50}}));
  split_at(v, 0, before);
  EXPECT_TRUE(before.empty());
  EXPECT_EQ(v.size(), 2u);
}

constexpr ClassMask kCompute = class_bit(EventClass::kCompute);
constexpr ClassMask kIo = class_bit(EventClass::kIo);

TEST(RankIntervals, MeasuresDifferencesExactly) {
  RankIntervals r(1'000'000);
  EXPECT_TRUE(r.add(kCompute, 0, 100));
  EXPECT_TRUE(r.add(kIo, 50, 150));
  EXPECT_TRUE(r.add(kCompute | kIo, 140, 160));
  r.advance(160);
  const IntervalTotals t = r.finish();
  EXPECT_EQ(t.compute, 120);
  EXPECT_EQ(t.io, 110);
  EXPECT_EQ(t.unoverlapped_io, 40);       // [100,140)
  EXPECT_EQ(t.unoverlapped_compute, 50);  // [0,50)
  EXPECT_EQ(t.app_io, 0);
}

// A fetch wait is FETCH and APP_IO; the worker's read before it is APP_IO
// only. Merging the wait into the APP_IO union must not stretch its FETCH.
TEST(RankIntervals, EachClassMergesOnItsOwn) {
  const ClassMask app_io = class_bit(EventClass::kAppIo);
  const ClassMask fetch = class_bit(EventClass::kFetch) | app_io;
  RankIntervals r(1'000'000);
  EXPECT_TRUE(r.add(app_io, 0, 100));
  EXPECT_TRUE(r.add(fetch, 50, 150));
  EXPECT_TRUE(r.add(class_bit(EventClass::kDeviceBusy), 120, 130));
  r.advance(150);
  const IntervalTotals t = r.finish();
  EXPECT_EQ(t.app_io, 150);
  EXPECT_EQ(t.fetch, 100);
  EXPECT_EQ(t.fetch_not_device, 90);
}

TEST(RankIntervals, RefusesIntervalsThatReachIntoSealedTime) {
  RankIntervals r(10);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(RankIntervals::kSealEvery); ++i) {
    ASSERT_TRUE(r.add(kIo, i * 100, i * 100 + 50));
    r.advance(i * 100 + 50);
  }
  EXPECT_GT(r.sealed_to(), 0);
  EXPECT_FALSE(r.add(kCompute, 0, 60));
  const IntervalTotals t = r.finish();
  EXPECT_EQ(t.io, static_cast<std::int64_t>(RankIntervals::kSealEvery) * 50);
  EXPECT_EQ(t.compute, 0);  // refused; the caller re-reads with add_early()
}

// Intervals as a trace delivers them: mostly in end order, parents after
// their children, with some out of order; against unions computed directly.
TEST(RankIntervals, MatchesDirectUnionsOnTraceLikeStreams) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 4; ++round) {
    // Sealing runs every kSealEvery intervals, 1000 behind the latest end.
    RankIntervals r(1000);
    std::vector<Interval> compute, io;
    std::int64_t t = 0;
    for (std::size_t i = 0; i < 3 * RankIntervals::kSealEvery; ++i) {
      const std::int64_t dur = static_cast<std::int64_t>(rng() % 50);
      std::int64_t start = t + static_cast<std::int64_t>(rng() % 20);
      std::int64_t end = start + dur;
      switch (rng() % 5) {
        case 0:  // a parent spanning what came before it
          start = std::max<std::int64_t>(0, start - static_cast<std::int64_t>(rng() % 300));
          break;
        case 1:  // written out of end order
          start = std::max<std::int64_t>(0, start - 200);
          end = start + dur;
          break;
        default:
          break;
      }
      t = std::max(t, end);
      const ClassMask classes = rng() % 3 == 0 ? kCompute : rng() % 2 == 0 ? kIo : kCompute | kIo;
      ASSERT_TRUE(r.add(classes, start, end));
      r.advance(t);
      if ((classes & kCompute) != 0) compute.push_back({start, end});
      if ((classes & kIo) != 0) io.push_back({start, end});
    }
    EXPECT_GT(r.sealed_to(), 0);
    normalize(compute);
    normalize(io);
    const IntervalTotals got = r.finish();
    EXPECT_EQ(got.compute, measure(compute));
    EXPECT_EQ(got.io, measure(io));
    EXPECT_EQ(got.unoverlapped_io, measure(io) - intersection_measure(io, compute));
    EXPECT_EQ(got.unoverlapped_compute, measure(compute) - intersection_measure(compute, io));
  }
}

TEST(RankIntervals, TotalsAdd) {
  IntervalTotals a;
  a.compute = 1;
  a.fetch_not_device = 2;
  IntervalTotals b = a;
  b += a;
  EXPECT_EQ(b.compute, 2);
  EXPECT_EQ(b.fetch_not_device, 4);
  EXPECT_EQ(b.io, 0);
}

}  // namespace
}  // namespace stallwatch::collector
