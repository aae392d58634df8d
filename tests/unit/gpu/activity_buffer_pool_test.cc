// SPDX-License-Identifier: MIT
#include "activity_buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace stallwatch::agent {
namespace {

TEST(ActivityBufferPool, HandsOutAlignedBuffersUntilExhaustedAndCountsRefusals) {
  ActivityBufferPool pool;
  ASSERT_TRUE(pool.configure(2, 100));
  EXPECT_EQ(pool.buffer_bytes(), 104u) << "sizes round up to CUPTI's 8-byte alignment";
  EXPECT_EQ(pool.capacity(), 2u);
  std::uint8_t* a = pool.acquire();
  std::uint8_t* b = pool.acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % ActivityBufferPool::kAlignment, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % ActivityBufferPool::kAlignment, 0u);
  EXPECT_EQ(pool.acquire(), nullptr);
  EXPECT_EQ(pool.acquire(), nullptr);
  EXPECT_EQ(pool.refused(), 2u);
  EXPECT_EQ(pool.available(), 0u);

  pool.release(a);
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(pool.acquire(), a) << "a released buffer is handed out again";
  EXPECT_EQ(pool.refused(), 2u);
}

TEST(ActivityBufferPool, IgnoresForeignAndDoubleReleases) {
  ActivityBufferPool pool;
  ASSERT_TRUE(pool.configure(1, 64));
  std::uint8_t* buffer = pool.acquire();
  std::uint8_t foreign[64];
  pool.release(foreign);
  pool.release(nullptr);
  EXPECT_EQ(pool.available(), 0u);
  pool.release(buffer);
  pool.release(buffer);
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(pool.acquire(), buffer);
  EXPECT_EQ(pool.acquire(), nullptr);
}

TEST(ActivityBufferPool, KeepsItsFirstGeometry) {
  ActivityBufferPool pool;
  EXPECT_FALSE(pool.configure(0, 64));
  ASSERT_TRUE(pool.configure(3, 64));
  EXPECT_TRUE(pool.configure(10, 4096));
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.buffer_bytes(), 64u);
}

}  // namespace
}  // namespace stallwatch::agent
