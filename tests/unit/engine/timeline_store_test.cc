#include "engine/timeline_store.h"

#include <gtest/gtest.h>

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
  store.add_region(region(20, 30));  // drops [0, 10)
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

  store.add_region(region(4 * kS, 70 * kS));  // drops the first: it ended at 10 s
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

}  // namespace
}  // namespace stallwatch::collector::detail
