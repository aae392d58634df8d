// SPDX-License-Identifier: MIT
#include "process_clock.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace stallwatch::agent {
namespace {

std::int64_t realtime_ns() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

TEST(ProcessClock, ReadsUnixEpochNanoseconds) {
  const std::int64_t ours = ProcessClock::instance().now_ns();
  // Generous: only an NTP step while the test runs could move them apart.
  EXPECT_LT(std::llabs(ours - realtime_ns()), 1'000'000'000);
}

TEST(ProcessClock, TicksAndNowAgree) {
  ProcessClock& clock = ProcessClock::instance();
  const std::int64_t before = clock.now_ns();
  const std::int64_t from_ticks = clock.to_ns(read_ticks());
  const std::int64_t after = clock.now_ns();
  EXPECT_LE(before, from_ticks);
  EXPECT_LE(from_ticks, after);
}

TEST(ProcessClock, NeverGoesBackwardsAcrossThreadsWhileRecalibrating) {
  ProcessClock& clock = ProcessClock::instance();
  std::atomic<bool> stop{false};
  std::atomic<std::int64_t> latest{clock.now_ns()};
  std::atomic<bool> backwards{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      std::int64_t last = 0;
      while (!stop.load()) {
        const std::int64_t seen = latest.load();
        const std::int64_t now = clock.now_ns();
        // Every reading is at least the last one published by any thread before it.
        if (now < last || now < seen) backwards = true;
        last = now;
        std::int64_t expected = seen;
        while (now > expected && !latest.compare_exchange_weak(expected, now)) {
        }
      }
    });
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
  while (std::chrono::steady_clock::now() < end) {
    clock.recalibrate();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop = true;
  for (auto& reader : readers)
    reader.join();
  EXPECT_FALSE(backwards.load());
  EXPECT_LT(std::llabs(clock.now_ns() - realtime_ns()), 1'000'000'000);
}

// Where the ticks are CLOCK_MONOTONIC ns and the CPU has an invariant TSC,
// calls timed whole take their duration from the TSC (call_tsc_mult): a
// 50 ms sleep so timed agrees with CLOCK_MONOTONIC's to 0.5 %, before and
// after the sender refines the rate. With TSC ticks, calls use the ticks.
TEST(ProcessClock, CallDurationsFromTheTscAgreeWithTheClock) {
  ProcessClock& clock = ProcessClock::instance();
  if (clock.uses_tsc()) {
    EXPECT_EQ(call_tsc_mult.load(), 0u);
    return;
  }
  if (call_tsc_mult.load() == 0) GTEST_SKIP() << "no invariant TSC: calls read the clock twice";
#if defined(__x86_64__)
  for (int pass = 0; pass < 2; ++pass) {
    // The TSC interval lies inside [start, end] and holds the whole sleep.
    const std::int64_t start = read_ticks();
    const std::int64_t stamp = read_call_stamp();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto elapsed = static_cast<std::int64_t>(__builtin_ia32_rdtsc()) - stamp;
    const std::int64_t end = read_ticks();
    const auto duration =
        static_cast<double>(static_cast<Int128>(elapsed) * call_tsc_mult.load() >> 32);
    EXPECT_GE(duration, 50'000'000 * 0.995) << "pass " << pass;
    EXPECT_LE(duration, static_cast<double>(end - start) * 1.005) << "pass " << pass;
    clock.recalibrate();
  }
#endif
}

// Exit code 0 when a clock started with STALLWATCH_CLOCK=monotonic uses
// CLOCK_MONOTONIC (calls too) and still reads Unix epoch time; else which
// check failed.
int check_monotonic_fallback() {
  setenv("STALLWATCH_CLOCK", "monotonic", 1);
  ProcessClock& clock = ProcessClock::instance();
  if (clock.uses_tsc() || clock_uses_tsc.load() || call_tsc_mult.load() != 0) return 1;
  const std::int64_t a = clock.now_ns();
  const std::int64_t b = clock.to_ns(read_ticks());
  if (b < a) return 2;
  if (std::llabs(b - realtime_ns()) >= 1'000'000'000) return 3;
  return 0;
}

// The clock is chosen once per process: the "threadsafe" death-test style
// re-executes this binary for just this test, so the clock starts fresh.
TEST(ProcessClockDeathTest, FallsBackToClockMonotonicWhenAsked) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(check_monotonic_fallback()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace stallwatch::agent
