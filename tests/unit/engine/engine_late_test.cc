// SPDX-License-Identifier: MIT
// Late data: anything whose time is before the finalized horizon H when it
// arrives is counted late and only its part from H on is used.

#include <gtest/gtest.h>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Horizon after a batch sent at 20 ms: floor(20 ms - 5 ms lateness) = 15 ms.
constexpr std::int64_t kH = kT0 + ms(15);

struct LateFixture : ::testing::Test {
  LateFixture() : h(small_config()), main(h.source(100)) { h.send(main.take(kT0 + ms(20))); }
  const RankSnapshot& tick(std::int64_t at) {
    snap = h.tick(at);
    return *find_rank(*snap, "job", 0);
  }
  Harness h;
  BatchBuilder main;
  std::shared_ptr<const Snapshot> snap;
};

TEST_F(LateFixture, CompleteStraddlingTheHorizonIsClipped) {
  main.complete("compute", "forward", kT0 + ms(10), ms(8));
  h.send(main.take(kT0 + ms(21)));
  const RankSnapshot& r = tick(kT0 + ms(21));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_DOUBLE_EQ(window(r, 0).compute_seconds, 0.003);
}

TEST_F(LateFixture, CompleteEntirelyBeforeTheHorizonIsDropped) {
  main.complete("compute", "forward", kT0 + ms(5), ms(7));
  h.send(main.take(kT0 + ms(21)));
  const RankSnapshot& r = tick(kT0 + ms(21));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_DOUBLE_EQ(window(r, 0).compute_seconds, 0.0);
}

TEST_F(LateFixture, LateBeginStartsAtTheHorizon) {
  main.begin("compute", "forward", kT0 + ms(12), 1).end(kT0 + ms(19), 1);
  h.send(main.take(kT0 + ms(21)));
  const RankSnapshot& r = tick(kT0 + ms(21));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_DOUBLE_EQ(window(r, 0).compute_seconds, 0.004);
}

TEST_F(LateFixture, LateEndClosesTheRegionAtTheHorizon) {
  main.begin("compute", "forward", kT0 + ms(16), 1);
  h.send(main.take(kT0 + ms(21)));
  h.send(main.take(kT0 + ms(30)));  // horizon 25 ms: the open region is final up to there
  main.end(kT0 + ms(20), 1);
  h.send(main.take(kT0 + ms(31)));
  const RankSnapshot& r = tick(kT0 + ms(31));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_DOUBLE_EQ(window(r, 0).compute_seconds, 0.009);
  EXPECT_EQ(r.processes[0].open_regions, 0u);
}

TEST_F(LateFixture, LateMarkIsDropped) {
  main.mark("step", kT0 + ms(10), 1).mark("step", kT0 + ms(16), 2);
  h.send(main.take(kT0 + ms(21)));
  const RankSnapshot& r = tick(kT0 + ms(21));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_EQ(window(r, 0).steps, 1u);
  EXPECT_EQ(r.step, 2);
}

TEST_F(LateFixture, TheHorizonItselfIsNotLate) {
  main.complete("compute", "forward", kH, ms(1)).complete("POSIX", "read", kH - 1, ms(1));
  h.send(main.take(kT0 + ms(21)));
  const RankSnapshot& r = tick(kT0 + ms(21));
  EXPECT_EQ(r.counters.late_events, 1u);
  EXPECT_DOUBLE_EQ(window(r, 0).compute_seconds, 0.001);
  EXPECT_DOUBLE_EQ(window(r, 0).io_seconds, 0.001 - 1e-9);
}

// Two processes whose batches interleave; any delivery order that keeps every
// event at or after the horizon gives identical metrics.
TEST(EngineLate, OutOfOrderWithinLatenessMatchesInOrder) {
  auto run = [](bool shuffled) {
    Harness h(small_config());
    auto main = h.source(100);
    auto worker = h.source(300, ProcessRole::kWorker);
    std::vector<DecodedBatch> main_batches;
    std::vector<DecodedBatch> worker_batches;
    for (int i = 0; i < 20; ++i) {
      const std::int64_t at = kT0 + ms(2 * i);
      main.complete("loader", "fetch.iter", at, us(600))
          .complete("compute", "forward", at + us(600), us(1400))
          .mark("step", at + ms(2) - 1, i);
      worker.complete("POSIX", "read", at + us(100), us(1500))
          .complete("data", "decode", at + ms(1), ms(1), 301);
      main_batches.push_back(main.take(at + ms(2)));
      worker_batches.push_back(worker.take(at + ms(2) + us(50)));
    }
    for (std::size_t i = 0; i < main_batches.size(); ++i) {
      if (shuffled && i % 2 == 0 && i + 1 < main_batches.size()) {
        h.send(worker_batches[i + 1]);
        h.send(main_batches[i]);
        h.send(main_batches[i + 1]);
        h.send(worker_batches[i]);
        ++i;
      } else {
        h.send(main_batches[i]);
        h.send(worker_batches[i]);
      }
    }
    auto snap = h.tick(kT0 + ms(60));
    return *find_rank(*snap, "job", 0);
  };
  const RankSnapshot a = run(false);
  const RankSnapshot b = run(true);
  EXPECT_EQ(a.counters.late_events, 0u);
  EXPECT_EQ(b.counters.late_events, 0u);
  ASSERT_EQ(a.windows.size(), b.windows.size());
  for (std::size_t i = 0; i < a.windows.size(); ++i) {
    const WindowMetrics& x = a.windows[i];
    const WindowMetrics& y = b.windows[i];
    EXPECT_GT(x.compute_seconds, 0);
    EXPECT_EQ(x.compute_seconds, y.compute_seconds);
    EXPECT_EQ(x.io_seconds, y.io_seconds);
    EXPECT_EQ(x.app_io_seconds, y.app_io_seconds);
    EXPECT_EQ(x.unoverlapped_app_io_seconds, y.unoverlapped_app_io_seconds);
    EXPECT_EQ(x.unoverlapped_io_seconds, y.unoverlapped_io_seconds);
    EXPECT_EQ(x.data_stall_seconds, y.data_stall_seconds);
    EXPECT_EQ(x.steps, y.steps);
    EXPECT_EQ(x.step_seconds_p50, y.step_seconds_p50);
    EXPECT_EQ(x.verdict, y.verdict);
  }
}

}  // namespace
}  // namespace stallwatch::collector::testing
