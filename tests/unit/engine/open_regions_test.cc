// SPDX-License-Identifier: MIT
#include "open_regions.h"

#include <gtest/gtest.h>

namespace stallwatch::collector::detail {
namespace {

OpenRegion region(std::uint32_t tid, std::uint32_t id, std::int64_t begin) {
  OpenRegion r;
  r.key = region_key(tid, id);
  r.tid = tid;
  r.begin_ns = begin;
  return r;
}

TEST(OpenRegions, FindAddRemoveKeepArrivalOrder) {
  OpenRegions open;
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(open.find(region_key(1, 1)), nullptr);
  open.add(region(1, 1, 10));
  open.add(region(1, 2, 20));
  open.add(region(2, 1, 30));
  ASSERT_EQ(open.size(), 3u);
  OpenRegion* r = open.find(region_key(1, 2));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->begin_ns, 20);
  open.remove(r);
  EXPECT_EQ(open.size(), 2u);
  EXPECT_EQ(open.find(region_key(1, 2)), nullptr);
  std::vector<std::int64_t> begins;
  for (const auto& e : open)
    begins.push_back(e.begin_ns);
  EXPECT_EQ(begins, (std::vector<std::int64_t>{10, 30}));
  EXPECT_EQ(open.entries().size(), 2u);
  EXPECT_GT(open.bytes(), 0u);
  open.clear();
  EXPECT_TRUE(open.empty());
}

TEST(OpenRegions, KeysSeparateThreadsAndFindTheNewestDuplicate) {
  EXPECT_NE(region_key(1, 2), region_key(2, 1));
  OpenRegions open;
  open.add(region(7, 1, 1));
  open.add(region(7, 1, 2));
  EXPECT_EQ(open.find(region_key(7, 1))->begin_ns, 2);
}

}  // namespace
}  // namespace stallwatch::collector::detail
