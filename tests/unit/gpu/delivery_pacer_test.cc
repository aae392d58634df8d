// SPDX-License-Identifier: MIT
#include "delivery_pacer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(DeliveryPacer, SizesBuffersToFillWithinTheTargetAtTheRecentRate) {
  DeliveryPacer pacer;
  pacer.reset(8192, 0);
  EXPECT_EQ(pacer.records_per_buffer(), 8192u) << "a burst at start fits";
  // 1000 kernels a second: 200 fill a buffer in 200 ms.
  for (int i = 1; i <= 10; ++i) {
    pacer.on_delivered(100, 50 * kMs, i * 100 * kMs);
    pacer.tick(i * 100 * kMs);
  }
  EXPECT_EQ(pacer.records_per_buffer(), 200u);
  // 200 000 a second: bounded by what a buffer holds.
  pacer.on_delivered(20'000, 10 * kMs, 1100 * kMs);
  pacer.tick(1100 * kMs);
  EXPECT_EQ(pacer.records_per_buffer(), 8192u);
  // Idle: down to the floor a few windows later, which still takes a burst.
  for (int i = 12; i < 40; ++i)
    pacer.tick(i * 100 * kMs);
  EXPECT_EQ(pacer.records_per_buffer(), DeliveryPacer::kMinRecords);
}

TEST(DeliveryPacer, KeepsTheLatestAndLongestDelay) {
  DeliveryPacer pacer;
  pacer.reset(100, 0);
  pacer.on_delivered(5, 300 * kMs, 1000 * kMs);
  pacer.on_delivered(5, 120 * kMs, 1100 * kMs);
  pacer.on_delivered(5, -1, 1200 * kMs);
  EXPECT_EQ(pacer.last_delay_ns(), 120 * kMs);
  EXPECT_EQ(pacer.max_delay_ns(), 300 * kMs);
}

TEST(DeliveryPacer, ForcesTheFirstBuffersBackWhenNoneCameBackForASecond) {
  DeliveryPacer pacer;
  pacer.reset(100, 0);
  EXPECT_FALSE(pacer.force_due(0, 128, 5000 * kMs)) << "nothing out";
  pacer.note_progress(5000 * kMs);
  EXPECT_FALSE(pacer.force_due(2, 128, 5900 * kMs));
  EXPECT_TRUE(pacer.force_due(2, 128, 6000 * kMs))
      << "no rate measured yet: the buffer out is sized for a burst and may never fill";
  pacer.on_delivered(3, 10 * kMs, 6000 * kMs);
  EXPECT_FALSE(pacer.force_due(2, 128, 6500 * kMs));
}

TEST(DeliveryPacer, OnceSizedToTheRateWaitsForALongKernelUnlessThePoolRunsOut) {
  DeliveryPacer pacer;
  pacer.reset(4096, 0);
  for (int i = 1; i <= 5; ++i) {
    pacer.on_delivered(100, 50 * kMs, i * 100 * kMs);
    pacer.tick(i * 100 * kMs);
  }
  ASSERT_LT(pacer.records_per_buffer(), 4096u);
  // A 5 s kernel holds its buffer back: forcing it would lose the kernel.
  for (int i = 6; i <= 55; ++i)
    pacer.tick(i * 100 * kMs);
  EXPECT_FALSE(pacer.force_due(1, 128, 5500 * kMs));
  EXPECT_FALSE(pacer.force_due(95, 128, 5500 * kMs));
  EXPECT_TRUE(pacer.force_due(96, 128, 5500 * kMs))
      << "three quarters of the pool out: CUPTI would soon drop records";
  EXPECT_FALSE(pacer.force_due(96, 128, 1400 * kMs)) << "less than a second without a buffer";
  pacer.reset(4096, 6000 * kMs);
  EXPECT_TRUE(pacer.force_due(1, 128, 7000 * kMs)) << "a new session measures the rate anew";
}

}  // namespace
}  // namespace stallwatch::agent
