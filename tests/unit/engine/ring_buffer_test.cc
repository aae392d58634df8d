// SPDX-License-Identifier: MIT
#include "engine/ring_buffer.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace stallwatch::collector::detail {
namespace {

TEST(RingBuffer, PushUntilFullThenOverwritesOldest) {
  RingBuffer<int> r(3);
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.push_back(1).has_value());
  EXPECT_FALSE(r.push_back(2).has_value());
  EXPECT_FALSE(r.push_back(3).has_value());
  EXPECT_TRUE(r.full());
  auto out = r.push_back(4);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, 1);
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.front(), 2);
  EXPECT_EQ(r.back(), 4);
  EXPECT_EQ(r[1], 3);
}

TEST(RingBuffer, PopFrontAndClear) {
  RingBuffer<int> r(4);
  for (int i = 0; i < 6; ++i)
    r.push_back(i);
  r.pop_front();
  EXPECT_EQ(r.front(), 3);
  EXPECT_EQ(r.size(), 3u);
  r.clear();
  EXPECT_TRUE(r.empty());
  r.push_back(7);
  EXPECT_EQ(r.front(), 7);
  EXPECT_EQ(r.back(), 7);
}

TEST(RingBuffer, StorageGrowsOnlyAsNeeded) {
  RingBuffer<std::int64_t> r(1000);
  r.push_back(1);
  EXPECT_LT(r.bytes(), 1000 * sizeof(std::int64_t));
  EXPECT_EQ(r.capacity(), 1000u);
}

// Growing by doubling must stop at the capacity: a 20000-slot ring that
// fills up holds 20000 elements' worth, not the next power of two.
TEST(RingBuffer, StorageNeverExceedsTheCapacity) {
  RingBuffer<std::int64_t> r(20000);
  for (std::int64_t i = 0; i < 50000; ++i)
    r.push(i);
  EXPECT_EQ(r.size(), 20000u);
  EXPECT_EQ(r.front(), 30000);
  EXPECT_EQ(r.back(), 49999);
  EXPECT_EQ(r.bytes(), 20000 * sizeof(std::int64_t));
}

TEST(RingBuffer, MatchesADequeUnderRandomOperations) {
  std::mt19937 rng(7);
  RingBuffer<int> r(17);
  std::deque<int> ref;
  for (int i = 0; i < 5000; ++i) {
    const int op = std::uniform_int_distribution<int>(0, 9)(rng);
    if (op == 0) {
      r.push(i);
      ref.push_back(i);
      if (ref.size() > 17) ref.pop_front();
    } else if (op < 6) {
      auto out = r.push_back(i);
      ref.push_back(i);
      if (ref.size() > 17) {
        ASSERT_TRUE(out.has_value());
        ASSERT_EQ(*out, ref.front());
        ref.pop_front();
      } else {
        ASSERT_FALSE(out.has_value());
      }
    } else if (op < 9 && !ref.empty()) {
      r.pop_front();
      ref.pop_front();
    } else if (op == 9 && i % 50 == 0) {
      r.clear();
      ref.clear();
    }
    ASSERT_EQ(r.size(), ref.size());
    for (std::size_t k = 0; k < ref.size(); ++k)
      ASSERT_EQ(r[k], ref[k]);
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
