// SPDX-License-Identifier: MIT
#include "engine/timeline_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

TimelineEntry region(std::int64_t start, std::int64_t end) {
  TimelineEntry e;
  e.start_ns = start;
  e.end_ns = end;
  return e;
}

TEST(TimelineStore, ExpiresByAgeFromTheWatermark) {
  TimelineStore store(100, 10);
  store.add_region(region(0, 50));
  store.add_region(region(60, 120));
  store.add_mark(TimelineMarkEntry{40, 1});
  store.add_mark(TimelineMarkEntry{130, 2});
  store.expire(160);  // keeps what ends at or after 60
  ASSERT_EQ(store.region_count(), 1u);
  EXPECT_EQ(store.region(0).start_ns, 60);
  ASSERT_EQ(store.marks().size(), 1u);
  EXPECT_EQ(store.marks()[0].value, 2);
  EXPECT_FALSE(store.truncated_since(0));
}

TEST(TimelineStore, DroppingForSpaceIsReportedForTheDroppedTime) {
  TimelineStore store(1000, 2);
  store.add_region(region(0, 10));
  store.add_region(region(10, 20));
  store.add_region(region(20, 30));
  store.trim();  // drops [0, 10)
  EXPECT_EQ(store.region_count(), 2u);
  EXPECT_TRUE(store.truncated_since(5));
  EXPECT_FALSE(store.truncated_since(10));
  store.add_mark(TimelineMarkEntry{40, 1});
  store.add_mark(TimelineMarkEntry{41, 2});
  store.add_mark(TimelineMarkEntry{42, 3});  // drops the mark at 40
  EXPECT_TRUE(store.truncated_since(39));
  EXPECT_GT(store.bytes(), 0u);
}

TEST(TimelineStore, ReadsBackEveryFieldOfARegion) {
  TimelineStore store(1'000'000'000, 8);
  TimelineEntry e;
  e.start_ns = 1'700'000'000'123'456'789;
  e.end_ns = e.start_ns + 4'294'967'294;  // the longest duration kept inline
  e.cat = 7;
  e.name = (1u << 20) - 1;
  e.tid = 0xFFFFFFF0u;
  e.source = 65535;
  e.mask = 0x7F;
  store.add_region(e);
  const TimelineEntry r = store.region(0);
  EXPECT_EQ(r.start_ns, e.start_ns);
  EXPECT_EQ(r.end_ns, e.end_ns);
  EXPECT_EQ(r.cat, e.cat);
  EXPECT_EQ(r.name, e.name);
  EXPECT_EQ(r.tid, e.tid);
  EXPECT_EQ(r.source, e.source);
  EXPECT_EQ(r.mask, e.mask);
}

TEST(TimelineStore, NamesBeyondTheDefaultTableBoundReadAsOverflow) {
  TimelineStore store(1000, 8);
  TimelineEntry e = region(0, 10);
  e.cat = 1u << 20;
  e.name = 5;
  store.add_region(e);
  EXPECT_EQ(store.region(0).cat, NameTable::kOverflow);
  EXPECT_EQ(store.region(0).name, 5u);
}

// Regions longer than 32-bit nanoseconds keep their exact end, through
// reads, expiry and drops for space, interleaved with short ones.
TEST(TimelineStore, LongRegionsKeepTheirExactEnd) {
  constexpr std::int64_t kS = 1'000'000'000;
  TimelineStore store(100 * kS, 4);
  store.add_region(region(0, 10 * kS));       // long
  store.add_region(region(1 * kS, 2 * kS));   // short
  store.add_region(region(2 * kS, 60 * kS));  // long
  store.add_region(region(3 * kS, 3 * kS + 5));
  ASSERT_EQ(store.region_count(), 4u);
  EXPECT_EQ(store.region(0).end_ns, 10 * kS);
  EXPECT_EQ(store.region(1).end_ns, 2 * kS);
  EXPECT_EQ(store.region(2).end_ns, 60 * kS);
  EXPECT_EQ(store.region(3).end_ns, 3 * kS + 5);

  store.add_region(region(4 * kS, 70 * kS));
  store.trim();  // drops the first: it ended at 10 s
  EXPECT_TRUE(store.truncated_since(9 * kS));
  EXPECT_FALSE(store.truncated_since(10 * kS));
  ASSERT_EQ(store.region_count(), 4u);
  EXPECT_EQ(store.region(0).start_ns, 1 * kS);
  EXPECT_EQ(store.region(1).end_ns, 60 * kS);
  EXPECT_EQ(store.region(3).end_ns, 70 * kS);

  store.expire(103 * kS + 6);  // from the oldest, up to the first that ends at or after 3 s + 6
  ASSERT_EQ(store.region_count(), 3u);
  EXPECT_EQ(store.region(0).end_ns, 60 * kS);
  EXPECT_EQ(store.region(1).end_ns, 3 * kS + 5);
  EXPECT_EQ(store.region(2).end_ns, 70 * kS);
  store.expire(165 * kS);
  ASSERT_EQ(store.region_count(), 1u);
  EXPECT_EQ(store.region(0).start_ns, 4 * kS);
  EXPECT_EQ(store.region(0).end_ns, 70 * kS);
}

TimelineBlock block_of(std::size_t n, std::int64_t from, std::size_t capacity = 0) {
  TimelineBlock b;
  b.reserve(std::max(n, capacity));
  for (std::size_t i = 0; i < n; ++i) {
    const auto t = from + static_cast<std::int64_t>(i) * 10;
    b.append(region(t, t + 5));
  }
  return b;
}

TEST(TimelineStore, AdoptsBigBlocksWholeAndTagsTheirSource) {
  TimelineStore store(1'000'000, 10'000);
  TimelineEntry own = region(0, 1);
  own.source = 2;
  store.add_region(own);
  TimelineBlock b = block_of(TimelineStore::kAdoptMin, 100);
  store.add_block(b, 3);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0u);  // taken, not copied
  ASSERT_EQ(store.region_count(), TimelineStore::kAdoptMin + 1);
  EXPECT_EQ(store.region(0).source, 2);
  EXPECT_EQ(store.region(1).source, 3);
  EXPECT_EQ(store.region(1).start_ns, 100);
  EXPECT_EQ(store.region(TimelineStore::kAdoptMin).end_ns,
            100 + 10 * static_cast<std::int64_t>(TimelineStore::kAdoptMin - 1) + 5);
  // Regions after it go to a block of the store's own, in order.
  store.add_region(region(50'000, 50'001));
  std::vector<std::int64_t> starts;
  store.for_each_region([&](const TimelineEntry& e) { starts.push_back(e.start_ns); });
  ASSERT_EQ(starts.size(), TimelineStore::kAdoptMin + 2);
  EXPECT_EQ(starts.front(), 0);
  EXPECT_EQ(starts.back(), 50'000);
}

TEST(TimelineStore, SmallOrSparseBlocksAreCopied) {
  TimelineStore store(1'000'000, 10'000);
  TimelineBlock small = block_of(10, 0);
  store.add_block(small, 1);
  EXPECT_TRUE(small.empty());
  EXPECT_EQ(small.capacity(), 10u);  // kept by the caller for reuse
  TimelineBlock sparse = block_of(TimelineStore::kAdoptMin, 1000, 4 * TimelineStore::kAdoptMin);
  store.add_block(sparse, 4);
  EXPECT_EQ(sparse.capacity(), 4 * TimelineStore::kAdoptMin);
  ASSERT_EQ(store.region_count(), 10 + TimelineStore::kAdoptMin);
  EXPECT_EQ(store.region(0).source, 1);
  EXPECT_EQ(store.region(10).source, 4);
  EXPECT_EQ(store.region(10).start_ns, 1000);
  EXPECT_LT(store.bytes(), 3 * (10 + TimelineStore::kAdoptMin) * 24 + 4096);
}

TEST(TimelineStore, TrimHandsBackTheStorageOfABlockDroppedWhole) {
  constexpr std::size_t kN = 300;
  TimelineBlockPool pool;
  TimelineStore store(1'000'000'000, 2 * kN, &pool);
  for (int i = 0; i < 3; ++i) {
    TimelineBlock b = block_of(kN, i * 10'000);
    store.add_block(b, 0);
    store.trim();
  }
  EXPECT_EQ(store.region_count(), 2 * kN);
  ASSERT_EQ(pool.size(), 1u);  // the first block's
  TimelineBlock spare;
  pool.refill(spare);
  EXPECT_EQ(spare.capacity(), kN);
  EXPECT_TRUE(spare.empty());
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(store.region(0).start_ns, 10'000);
  EXPECT_TRUE(store.truncated_since(10 * (kN - 1)));  // the last region of the first block
  EXPECT_FALSE(store.truncated_since(10 * (kN - 1) + 5));
}

// A bound that is not a whole number of blocks: a batch that cuts into the
// oldest block drops none whole, the next drops two. With the pool, every
// batch after the first few still finds storage to fill (none allocated),
// and the pool stays within its bound.
TEST(TimelineStore, ThePoolFeedsEveryBatchWhenDropsComeInPairs) {
  constexpr std::size_t kN = 1000;
  TimelineBlockPool pool;
  TimelineStore store(std::int64_t{1} << 60, 2 * kN + kN / 2, &pool);
  TimelineBlock next = block_of(kN, 0);
  std::size_t fresh = 0;
  for (int i = 1; i <= 40; ++i) {
    store.add_block(next, 0);
    EXPECT_EQ(next.capacity(), 0u);  // adopted whole
    store.trim();
    pool.refill(next);
    EXPECT_LE(pool.size(), TimelineBlockPool::kMaxBlocks);
    if (next.capacity() == 0) {
      ++fresh;  // what the preparer would take from malloc
      next.reserve(kN);
    }
    for (std::size_t k = 0; k < kN; ++k)
      next.append(TimelineEntry{i * 100'000 + static_cast<std::int64_t>(k),
                                i * 100'000 + static_cast<std::int64_t>(k) + 1});
  }
  EXPECT_LE(fresh, 3u);  // only while the store first fills up
  EXPECT_EQ(store.region_count(), 2 * kN + kN / 2);
}

// As in stallwatchd: each batch's block is adopted, then a few regions that
// End events closed go into a block of the store's own, then the bound
// applies. Some batches drop two own blocks, some none; with the pool, the
// own blocks stop being allocated once the store is full.
TEST(TimelineStore, OwnBlocksComeBackThroughThePool) {
  constexpr std::size_t kN = 600;
  TimelineBlockPool pool;
  TimelineStore store(std::int64_t{1} << 60, 2 * kN + kN / 3, &pool);
  std::size_t allocated_after_fill = 0;
  std::int64_t t = 0;
  for (int i = 0; i < 60; ++i) {
    // Uneven batches: a big one drops two old ones, a small one none.
    const std::size_t n = i % 3 == 0 ? 2 * kN : kN / 2;
    TimelineBlock b;
    pool.refill(b);
    b.reserve(n);
    for (std::size_t k = 0; k < n; ++k, ++t)
      b.append(TimelineEntry{t, t + 1});
    store.add_block(b, 0);
    for (int k = 0; k < 5; ++k, ++t)
      store.add_region(TimelineEntry{t, t + 1});
    store.trim();
    if (i == 8) allocated_after_fill = store.own_blocks_allocated();
    EXPECT_LE(pool.own_size(), TimelineBlockPool::kMaxBlocks);
  }
  EXPECT_EQ(store.own_blocks_allocated(), allocated_after_fill);
  EXPECT_EQ(store.region_count(), 2 * kN + kN / 3);
}

// Random adds (one at a time and in blocks of every size), trims and
// expiries, short and long regions in random order, against a plain list
// with the rules spelled out: every region, the count and the truncation
// point agree after each trim and expiry.
TEST(TimelineStore, BlocksAndChunksMatchAPlainList) {
  constexpr std::int64_t kLongest = std::int64_t{1} << 34;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::size_t cap = 1 + rng() % 900;
    const std::int64_t keep = 200 + static_cast<std::int64_t>(rng() % 3'000);
    // Ends mostly rise with arrival, as they do in a live stream, so the
    // latest dropped or kept region decides; every fourth round has long ones.
    const bool longs = round % 4 == 0;
    TimelineBlockPool pool;
    TimelineStore store(keep, cap, &pool);
    std::deque<TimelineEntry> ref;
    std::int64_t ref_dropped = std::numeric_limits<std::int64_t>::min();
    std::int64_t clock = 0;
    std::int64_t watermark = 0;
    const auto make = [&] {
      clock += static_cast<std::int64_t>(rng() % 40);
      TimelineEntry e = region(clock - static_cast<std::int64_t>(rng() % 30), 0);
      const auto d = longs && rng() % 100 == 0 ? static_cast<std::int64_t>(rng() % kLongest)
                                               : static_cast<std::int64_t>(rng() % 100);
      e.end_ns = e.start_ns + d;
      e.tid = static_cast<std::uint32_t>(rng());
      e.mask = static_cast<ClassMask>(rng() % 128);
      return e;
    };
    for (int step = 0; step < 300; ++step) {
      const auto op = rng() % 10;  // add 4, add a block 3, trim 1, expire 2
      if (op < 4) {
        TimelineEntry e = make();
        e.source = static_cast<std::uint16_t>(rng() % 5);
        store.add_region(e);
        ref.push_back(e);
      } else if (op < 7) {
        const std::size_t n = rng() % 3 == 0 ? rng() % 40 : rng() % 700;
        TimelineBlock b;
        pool.refill(b);
        b.reserve(n + (rng() % 2 == 0 ? 0 : rng() % (2 * n + 1)));
        const auto source = static_cast<std::uint16_t>(rng() % 5);
        // Filled one region at a time, or as a BatchPreparer fills it.
        const bool appender = rng() % 2 == 0;
        std::optional<TimelineBlock::Appender> fill;
        if (appender) fill.emplace(b);
        for (std::size_t i = 0; i < n; ++i) {
          TimelineEntry e = make();
          if (appender) {
            fill->append(e.start_ns, e.end_ns, e.tid,
                         TimelineBlock::pack_ids(e.cat, e.name, e.mask));
          } else {
            b.append(e);
          }
          e.source = source;
          ref.push_back(e);
        }
        if (appender) fill->finish();
        store.add_block(b, source);
      } else if (op < 8) {
        store.trim();
        while (ref.size() > cap) {
          ref_dropped = std::max(ref_dropped, ref.front().end_ns);
          ref.pop_front();
        }
      } else {
        watermark = std::max(watermark, clock - static_cast<std::int64_t>(rng() % 200));
        store.trim();
        while (ref.size() > cap) {
          ref_dropped = std::max(ref_dropped, ref.front().end_ns);
          ref.pop_front();
        }
        store.expire(watermark);
        while (!ref.empty() && ref.front().end_ns < watermark - keep)
          ref.pop_front();
      }
      SCOPED_TRACE("round " + std::to_string(round) + " step " + std::to_string(step));
      if (op < 7) {
        // Between trims the store may have dropped some of what the next
        // trim drops, already.
        ASSERT_LE(store.region_count(), ref.size());
        ASSERT_GE(store.region_count(), std::min<std::size_t>(ref.size(), cap));
        continue;
      }
      ASSERT_EQ(store.region_count(), ref.size());
      std::size_t i = 0;
      store.for_each_region([&](const TimelineEntry& e) {
        const TimelineEntry& r = ref[i++];
        ASSERT_EQ(e.start_ns, r.start_ns);
        ASSERT_EQ(e.end_ns, r.end_ns);
        ASSERT_EQ(e.tid, r.tid);
        ASSERT_EQ(e.source, r.source);
        ASSERT_EQ(e.mask, r.mask);
      });
      // The COMM regions, read without the scan, are those of the scan.
      std::vector<std::pair<std::int64_t, std::int64_t>> comm;
      std::vector<std::pair<std::int64_t, std::int64_t>> scanned;
      store.for_each_comm_span([&](std::int64_t a, std::int64_t b) { comm.emplace_back(a, b); });
      store.for_each_span_of(class_bit(EventClass::kComm),
                             [&](std::int64_t a, std::int64_t b) { scanned.emplace_back(a, b); });
      ASSERT_EQ(comm, scanned);
      if (ref_dropped != std::numeric_limits<std::int64_t>::min()) {
        ASSERT_TRUE(store.truncated_since(ref_dropped - 1));
      }
      ASSERT_FALSE(store.truncated_since(ref_dropped));
    }
  }
}

// The step marks kept apart are exactly the marks of that name the store
// holds, as marks expire by age or drop for space, in or out of order.
TEST(TimelineStore, StepMarksAreThoseItHolds) {
  constexpr NameId kStep = 3;
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    const std::size_t cap = 1 + rng() % 50;
    TimelineStore store(500, cap, nullptr, kStep);
    std::int64_t clock = 0;
    std::int64_t watermark = 0;
    for (int step = 0; step < 400; ++step) {
      if (rng() % 5 == 0) {
        watermark = std::max(watermark, clock - static_cast<std::int64_t>(rng() % 100));
        store.expire(watermark);
      } else {
        clock += static_cast<std::int64_t>(rng() % 20);
        const bool late = rng() % 8 == 0;
        TimelineMarkEntry m{clock - (late ? static_cast<std::int64_t>(rng() % 60) : 0),
                            static_cast<std::int64_t>(rng() % 4),
                            rng() % 3 == 0 ? NameId{7} : kStep};
        store.add_mark(m);
      }
      std::vector<std::pair<std::int64_t, std::int64_t>> want;
      for (std::size_t i = 0; i < store.marks().size(); ++i) {
        if (store.marks()[i].name == kStep)
          want.emplace_back(store.marks()[i].ts_ns, store.marks()[i].value);
      }
      std::vector<std::pair<std::int64_t, std::int64_t>> got;
      for (const TimelineStore::StepMark& m : store.step_marks())
        got.emplace_back(m.ts_ns, m.value);
      ASSERT_EQ(got, want) << "round " << round << " step " << step;
      if (store.step_marks_sorted()) {
        ASSERT_TRUE(std::is_sorted(got.begin(), got.end()));
      }
    }
    EXPECT_GT(store.bytes(), 0u);
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
