// SPDX-License-Identifier: MIT
#include "event_ring.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "wakeup.h"

namespace stallwatch::agent {
namespace {

bool push(EventRing& ring, std::int64_t value) {
  Record* slot = ring.try_claim();
  if (slot == nullptr) return false;
  *slot = Record{};
  slot->value = value;
  ring.publish();
  return true;
}

std::vector<std::int64_t> drain(EventRing& ring, std::uint64_t limit = UINT64_MAX) {
  std::vector<std::int64_t> values;
  ring.consume(limit, [&](const Record& r) {
    values.push_back(r.value);
    return true;
  });
  return values;
}

TEST(EventRing, StartsEmpty) {
  EventRing ring(8, nullptr);
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_EQ(ring.pushed(), 0u);
  EXPECT_EQ(ring.capacity(), 8u);
  EXPECT_TRUE(drain(ring).empty());
}

TEST(EventRing, KeepsOrderAndCounts) {
  EventRing ring(8, nullptr);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(push(ring, i));
  EXPECT_EQ(ring.size(), 5u);
  EXPECT_EQ(drain(ring), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_EQ(ring.pushed(), 5u);
  EXPECT_EQ(ring.popped(), 5u);
}

TEST(EventRing, RefusesWhenFullWithoutOverwriting) {
  EventRing ring(4, nullptr);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(push(ring, i));
  EXPECT_FALSE(push(ring, 99));
  EXPECT_EQ(ring.size(), 4u);
  EXPECT_EQ(ring.pushed(), 4u);
  EXPECT_EQ(drain(ring), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(push(ring, 4));
}

TEST(EventRing, KeepsTheLastEighthForReservedClaims) {
  EventRing ring(16, nullptr);
  for (int i = 0; i < 14; ++i)
    ASSERT_TRUE(push(ring, i));
  EXPECT_FALSE(push(ring, 14));
  for (int i = 14; i < 16; ++i) {
    Record* slot = ring.try_claim_reserved();
    ASSERT_NE(slot, nullptr);
    *slot = Record{};
    slot->value = i;
    ring.publish();
  }
  EXPECT_EQ(ring.try_claim_reserved(), nullptr);
  EXPECT_EQ(ring.size(), 16u);
  EXPECT_EQ(drain(ring).back(), 15);
}

TEST(EventRing, FreesSpaceAsItIsConsumed) {
  EventRing ring(4, nullptr);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(push(ring, i));
  EXPECT_EQ(drain(ring, 2), (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(push(ring, 4));
  EXPECT_TRUE(push(ring, 5));
  EXPECT_FALSE(push(ring, 6));
  EXPECT_EQ(drain(ring), (std::vector<std::int64_t>{2, 3, 4, 5}));
}

TEST(EventRing, WrapsAroundManyTimes) {
  EventRing ring(4, nullptr);
  std::int64_t next_in = 0;
  std::int64_t next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    const int n = 1 + round % 4;
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(push(ring, next_in++));
    for (const std::int64_t value : drain(ring))
      ASSERT_EQ(value, next_out++);
  }
  EXPECT_EQ(next_out, next_in);
  EXPECT_EQ(ring.pushed(), static_cast<std::uint64_t>(next_in));
}

TEST(EventRing, ConsumeStopsAtTheFirstRefusedRecordAndKeepsIt) {
  EventRing ring(8, nullptr);
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(push(ring, i));
  std::vector<std::int64_t> taken;
  const std::size_t n = ring.consume(UINT64_MAX, [&](const Record& r) {
    if (r.value == 3) return false;
    taken.push_back(r.value);
    return true;
  });
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(taken, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(drain(ring), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(EventRing, ConsumeRespectsTheLimit) {
  EventRing ring(8, nullptr);
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(push(ring, i));
  EXPECT_EQ(drain(ring, 4), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ring.size(), 2u);
}

TEST(EventRing, ResetEmptiesAndRestartsCounters) {
  EventRing ring(4, nullptr);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(push(ring, i));
  ring.reset();
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_EQ(ring.pushed(), 0u);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(push(ring, 10 + i));
  EXPECT_EQ(drain(ring), (std::vector<std::int64_t>{10, 11, 12, 13}));
}

TEST(EventRing, WakesTheConsumerWhenHalfFull) {
  Wakeup wakeup;
  wakeup.wait_for(1);  // clear
  EventRing ring(16, &wakeup);
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(push(ring, i));
  const auto start = std::chrono::steady_clock::now();
  wakeup.wait_for(std::int64_t{30} * 1'000'000'000);  // returns at once: already notified
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(EventRing, ConcurrentProducerAndConsumerSeeEverySequenceNumberInOrder) {
  constexpr std::int64_t kCount = 300'000;
  EventRing ring(1024, nullptr);
  std::thread producer([&] {
    for (std::int64_t i = 0; i < kCount;) {
      if (Record* slot = ring.try_claim()) {
        *slot = Record{};
        slot->ts = i * 3;
        slot->value = i;
        ring.publish();
        ++i;
      } else {
        std::this_thread::yield();
      }
    }
  });
  std::int64_t expected = 0;
  bool in_order = true;
  while (expected < kCount) {
    const std::size_t n = ring.consume(UINT64_MAX, [&](const Record& r) {
      in_order = in_order && r.value == expected && r.ts == expected * 3;
      ++expected;
      return true;
    });
    if (n == 0) std::this_thread::yield();
  }
  producer.join();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(ring.pushed(), static_cast<std::uint64_t>(kCount));
  EXPECT_EQ(ring.size(), 0u);
}

}  // namespace
}  // namespace stallwatch::agent
