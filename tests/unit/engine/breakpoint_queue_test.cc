// SPDX-License-Identifier: MIT
#include "breakpoint_queue.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

void expect_same(const BreakpointQueue& q, const std::deque<Breakpoint>& ref) {
  ASSERT_EQ(q.size(), ref.size());
  ASSERT_EQ(q.empty(), ref.empty());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(q.time(i), ref[i].t) << "i=" << i;
    ASSERT_EQ(q.mask(i), ref[i].mask) << "i=" << i;
    ASSERT_EQ(q[i].t, ref[i].t);
  }
  if (!ref.empty()) {
    EXPECT_EQ(q.back().t, ref.back().t);
  }
}

TEST(BreakpointQueue, PushTruncateDropAcrossBlocks) {
  BreakpointQueue q;
  EXPECT_TRUE(q.empty());
  for (std::int64_t i = 0; i < 1500; ++i)
    q.push_back(Breakpoint{i * 10, static_cast<ClassMask>(i % 64)});
  ASSERT_EQ(q.size(), 1500u);
  EXPECT_EQ(q.time(1499), 14990);
  EXPECT_EQ(q.mask(700), 700 % 64);
  q.truncate(600);
  EXPECT_EQ(q.size(), 600u);
  EXPECT_EQ(q.back().t, 5990);
  q.drop_front(550);
  EXPECT_EQ(q.size(), 50u);
  EXPECT_EQ(q.time(0), 5500);
  q.drop_front(50);
  EXPECT_TRUE(q.empty());
  q.push_back(Breakpoint{1, 2});
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.time(0), 1);
}

// The front may stand for the beginning of time, pushed so or marked so
// after a cut, and times that the 32-bit offsets cannot span (a pause of
// hours, the extremes of the clamped time range) read back exactly.
TEST(BreakpointQueue, FrontAtMinTimeAndTimesFarApart) {
  constexpr std::int64_t kMin = BreakpointQueue::kMinTime;
  constexpr std::int64_t kFar = std::int64_t{1} << 62;
  BreakpointQueue q;
  q.push_back(Breakpoint{kMin, 0});
  q.push_back(Breakpoint{-kFar, 1});
  q.push_back(Breakpoint{5, 2});
  q.push_back(Breakpoint{6, 3});
  q.push_back(Breakpoint{kFar, 0});
  ASSERT_EQ(q.size(), 5u);
  EXPECT_EQ(q.time(0), kMin);
  EXPECT_EQ(q.time(1), -kFar);
  EXPECT_EQ(q.time(2), 5);
  EXPECT_EQ(q.time(3), 6);
  EXPECT_EQ(q.time(4), kFar);
  std::vector<Breakpoint> out;
  q.copy_to(0, 5, out);
  EXPECT_EQ(out[0].t, kMin);
  EXPECT_EQ(out[4].t, kFar);
  EXPECT_EQ(out[3].mask, 3);
  q.drop_front(2);
  EXPECT_EQ(q.time(0), 5);
  q.set_front_to_min();
  EXPECT_EQ(q.time(0), kMin);
  EXPECT_EQ(q.time(1), 6);
  EXPECT_EQ(q.mask(0), 2);

  BreakpointQueue compact;
  for (std::int64_t i = 0; i < 2000; ++i)
    compact.push_back(Breakpoint{1'700'000'000'000'000'000 + i * 1'000'000, 1});
  EXPECT_LT(compact.bytes(), 2000u * 8u);  // offsets, not full times
}

TEST(BreakpointQueue, BlocksAreGivenBackAsItSlides) {
  BreakpointQueue q;
  std::int64_t t = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 300; ++i)
      q.push_back(Breakpoint{t++, 1});
    q.drop_front(300);
  }
  EXPECT_EQ(q.size(), 0u);
  // A queue that slides keeps a block or two, not its whole history.
  EXPECT_LT(q.bytes(), 4u * 5000u);
  // Blocks that needed full times (a long pause) give that memory back too.
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 300; ++i) {
      t += i == 150 ? 10'000'000'000 : 1;
      q.push_back(Breakpoint{t, 1});
    }
    q.drop_front(300);
  }
  EXPECT_LT(q.bytes(), 4u * 5000u);
}

// A rank's queue takes a batch's worth of blocks at the back and gives a
// batch's worth back at the front: the blocks given back serve the next
// batch (its memory stays flat), and go when the queue empties.
TEST(BreakpointQueue, ReusesTheBlocksOfABatchDroppedAtOnce) {
  BreakpointQueue q;
  std::int64_t t = 0;
  const auto push = [&](int n) {
    std::vector<Breakpoint> add;
    for (int i = 0; i < n; ++i)
      add.push_back(Breakpoint{t++, static_cast<ClassMask>(1 + i % 2)});
    q.append(add);
  };
  constexpr int kBatch = 10 * 512;
  push(20 * 512);
  std::size_t steady = 0;
  std::size_t allocated = 0;
  for (int round = 0; round < 40; ++round) {
    push(kBatch);
    q.drop_front(kBatch);
    if (round == 1) {
      steady = q.bytes();
      allocated = q.blocks_allocated();
    }
    ASSERT_EQ(q.size(), 20u * 512u);
  }
  EXPECT_EQ(q.blocks_allocated(), allocated);
  EXPECT_EQ(q.bytes(), steady);
  // In use: 20 or 21 blocks; kept for the next batch: at most as many.
  EXPECT_LT(steady, 2u * 22u * (512u * 5u + 64u));
  EXPECT_EQ(q.time(0), 40 * kBatch);
  EXPECT_EQ(q.back().t, t - 1);
  q.drop_front(q.size());
  EXPECT_LT(q.bytes(), 4u * 5000u);
}

// Random pushes, appends, truncations, drops, front marks and copies against
// a deque, with gaps short and long enough to need full-width times.
TEST(BreakpointQueue, MatchesADequeUnderRandomOperations) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    BreakpointQueue q;
    std::deque<Breakpoint> ref;
    std::int64_t t = 1'700'000'000'000'000'000;
    const auto next_time = [&] {
      const int gap = std::uniform_int_distribution<int>(0, 999)(rng);
      t += gap == 0 ? std::int64_t{10'000'000'000} : gap;
      return t;
    };
    for (int op = 0; op < 400; ++op) {
      const int kind = std::uniform_int_distribution<int>(0, 6)(rng);
      if (kind <= 1) {
        const auto n = std::uniform_int_distribution<std::size_t>(0, 1200)(rng);
        std::vector<Breakpoint> add;
        if (ref.empty() && n > 0 && kind == 1)
          add.push_back(Breakpoint{BreakpointQueue::kMinTime, 0});
        while (add.size() < n)
          add.push_back(Breakpoint{next_time(), static_cast<ClassMask>(rng() % 64)});
        q.append(add);
        ref.insert(ref.end(), add.begin(), add.end());
      } else if (kind == 2) {
        const Breakpoint b{next_time(), static_cast<ClassMask>(rng() % 64)};
        q.push_back(b);
        ref.push_back(b);
      } else if (kind == 3 && !ref.empty()) {
        const auto n = std::uniform_int_distribution<std::size_t>(0, ref.size())(rng);
        q.truncate(n);
        ref.resize(n);
      } else if (kind == 4) {
        const auto n = std::uniform_int_distribution<std::size_t>(0, ref.size() + 10)(rng);
        q.drop_front(n);
        ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(std::min(n, ref.size())));
      } else if (kind == 5 && !ref.empty()) {
        q.set_front_to_min();
        ref.front().t = BreakpointQueue::kMinTime;
      }
      expect_same(q, ref);
      if (::testing::Test::HasFatalFailure()) return;
      const auto from = std::uniform_int_distribution<std::size_t>(0, ref.size())(rng);
      const auto to = std::uniform_int_distribution<std::size_t>(from, ref.size())(rng);
      std::vector<Breakpoint> out{Breakpoint{-7, 9}};
      q.copy_to(from, to, out);
      ASSERT_EQ(out.size(), 1 + to - from);
      EXPECT_EQ(out[0].t, -7);
      for (std::size_t i = from; i < to; ++i) {
        ASSERT_EQ(out[1 + i - from].t, ref[i].t);
        ASSERT_EQ(out[1 + i - from].mask, ref[i].mask);
      }
    }
  }
}

}  // namespace
}  // namespace stallwatch::collector::detail
