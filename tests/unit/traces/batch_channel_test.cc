// SPDX-License-Identifier: MIT
#include "traces/batch_channel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace stallwatch::collector {
namespace {

TEST(BatchChannel, DeliversEveryBatchInEachProducersOrderThroughFewSlots) {
  constexpr std::size_t kProducers = 3;
  constexpr std::uint64_t kBatches = 2000;
  BatchChannel channel(kProducers, 2);
  std::vector<std::thread> producers;
  for (std::size_t p = 0; p < kProducers; ++p) {
    producers.emplace_back([&channel, p] {
      for (std::uint64_t seq = 0; seq < kBatches; ++seq) {
        ShippedBatch* b = channel.acquire();
        b->producer = p;
        b->batch.seq = seq;
        channel.push(b);
      }
      channel.done();
    });
  }
  std::vector<std::uint64_t> next(kProducers, 0);
  std::vector<const ShippedBatch*> seen_slots;
  std::uint64_t total = 0;
  while (ShippedBatch* b = channel.pop()) {
    ASSERT_LT(b->producer, kProducers);
    EXPECT_EQ(b->batch.seq, next[b->producer]++);
    if (std::find(seen_slots.begin(), seen_slots.end(), b) == seen_slots.end()) {
      seen_slots.push_back(b);
    }
    ++total;
    channel.release(b);
  }
  for (std::thread& t : producers)
    t.join();
  EXPECT_EQ(total, kProducers * kBatches);
  EXPECT_LE(seen_slots.size(), 2u);  // memory: the slots, recycled
}

TEST(BatchChannel, EndsAtOnceWhenProducersSendNothing) {
  BatchChannel channel(2, 4);
  channel.done();
  channel.done();
  EXPECT_EQ(channel.pop(), nullptr);
}

}  // namespace
}  // namespace stallwatch::collector
