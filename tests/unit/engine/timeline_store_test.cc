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
  ASSERT_EQ(store.regions().size(), 1u);
  EXPECT_EQ(store.regions()[0].start_ns, 60);
  ASSERT_EQ(store.marks().size(), 1u);
  EXPECT_EQ(store.marks()[0].value, 2);
  EXPECT_FALSE(store.truncated_since(0));
}

TEST(TimelineStore, DroppingForSpaceIsReportedForTheDroppedTime) {
  TimelineStore store(1000, 2);
  store.add_region(region(0, 10));
  store.add_region(region(10, 20));
  store.add_region(region(20, 30));  // drops [0, 10)
  EXPECT_EQ(store.regions().size(), 2u);
  EXPECT_TRUE(store.truncated_since(5));
  EXPECT_FALSE(store.truncated_since(10));
  store.add_mark(TimelineMarkEntry{40, 1});
  store.add_mark(TimelineMarkEntry{41, 2});
  store.add_mark(TimelineMarkEntry{42, 3});  // drops the mark at 40
  EXPECT_TRUE(store.truncated_since(39));
  EXPECT_GT(store.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector::detail
