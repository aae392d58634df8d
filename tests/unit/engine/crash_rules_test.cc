// SPDX-License-Identifier: MIT
// The rules of docs/api.md ("What a crash or restart loses") for a region cut
// by a lost batch (a sequence gap), in the engine and in the brute-force
// oracle alike: a lost BEGIN leaves an END that adds no time and counts as
// unpaired once the finalized horizon passes it; a lost END leaves the region
// open up to its process's watermark, closed at the process's last batch and
// counted as unpaired there, or open up to the last time it sent when the
// process dies without one.

#include <gtest/gtest.h>

#include "oracle.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// One main process (pid 100) of job "job", rank 0, delivered to the engine
// and the oracle alike.
struct CrashRun {
  Harness h{small_config()};
  Oracle oracle{small_config(), h.names};
  BatchBuilder process = h.source(100);

  void deliver(const DecodedBatch& b) {
    h.send(b);
    oracle.ingest(b, b.sent_at_ns);
  }
  // The engine's rank after a tick at `now`; the oracle settled at `now`.
  const RankSnapshot& tick(std::int64_t now) {
    oracle.settle(now);
    const RankSnapshot* r = find_rank(*h.tick(now), "job", 0);
    EXPECT_NE(r, nullptr);
    return *r;
  }
  const WindowMetrics& oracle_totals() {
    oracle_windows = oracle.windows();
    return oracle_windows.back();
  }
  std::vector<WindowMetrics> oracle_windows;
};

TEST(CrashRules, AnEndWhoseBeginWasLostAddsNoTimeAndIsUnpairedOnceTheHorizonPassesIt) {
  CrashRun run;
  run.process.complete("compute", "forward", kT0, ms(1));
  run.deliver(run.process.take(kT0 + ms(1)));
  run.process.begin("loader", "fetch.iter", kT0 + ms(2), 1);
  (void)run.process.take(kT0 + ms(3));  // lost
  run.process.end(kT0 + ms(4), 1).complete("compute", "forward", kT0 + ms(4), ms(2));
  run.deliver(run.process.take(kT0 + ms(6)));

  // The horizon (6 - 5 ms) is before the END: it waits for its BEGIN.
  const RankSnapshot& waiting = run.tick(kT0 + ms(6));
  EXPECT_EQ(waiting.counters.lost_batches, 1u);
  EXPECT_EQ(waiting.counters.unpaired_events, 0u);
  EXPECT_EQ(run.oracle.unpaired_events(), 0u);
  EXPECT_DOUBLE_EQ(window(waiting, 0).fetch_seconds, 0.0);
  EXPECT_DOUBLE_EQ(run.oracle_totals().fetch_seconds, 0.0);

  run.process.complete("compute", "forward", kT0 + ms(6), ms(4));
  run.deliver(run.process.take(kT0 + ms(10)));
  // The horizon (10 - 5 ms) has passed the END: unpaired, and still no time.
  const RankSnapshot& r = run.tick(kT0 + ms(10));
  EXPECT_EQ(r.counters.unpaired_events, 1u);
  EXPECT_EQ(run.oracle.unpaired_events(), 1u);
  const WindowMetrics& oracle = run.oracle_totals();
  for (const WindowMetrics* w : {&window(r, 0), &oracle}) {
    EXPECT_DOUBLE_EQ(w->fetch_seconds, 0.0);
    EXPECT_DOUBLE_EQ(w->app_io_seconds, 0.0);
    EXPECT_DOUBLE_EQ(w->compute_seconds, 0.007);
    EXPECT_DOUBLE_EQ(w->wall_seconds, 0.010);
  }
}

TEST(CrashRules, ARegionWhoseEndWasLostStaysOpenToTheWatermarkAndClosesAtTheLastBatch) {
  CrashRun run;
  run.process.begin("loader", "fetch.iter", kT0 + ms(1), 1);
  run.deliver(run.process.take(kT0 + ms(2)));
  run.process.end(kT0 + ms(3), 1).complete("compute", "forward", kT0 + ms(3), ms(2));
  (void)run.process.take(kT0 + ms(5));  // lost
  run.process.complete("compute", "forward", kT0 + ms(8), ms(2));
  run.deliver(run.process.take(kT0 + ms(10)));

  // Open from 1 ms up to the watermark (10 ms): a stall that goes on.
  const RankSnapshot& open = run.tick(kT0 + ms(10));
  EXPECT_EQ(open.counters.lost_batches, 1u);
  EXPECT_EQ(open.counters.unpaired_events, 0u);
  EXPECT_EQ(run.oracle.unpaired_events(), 0u);
  EXPECT_DOUBLE_EQ(window(open, 0).fetch_seconds, 0.009);
  EXPECT_DOUBLE_EQ(run.oracle_totals().fetch_seconds, 0.009);

  run.process.complete("compute", "forward", kT0 + ms(15), ms(2));
  run.deliver(run.process.take(kT0 + ms(20), true));
  // Closed at the last batch (20 ms) and counted as unpaired.
  const RankSnapshot& r = run.tick(kT0 + ms(30));
  EXPECT_EQ(r.state, RankState::kFinished);
  EXPECT_EQ(r.counters.unpaired_events, 1u);
  EXPECT_EQ(run.oracle.unpaired_events(), 1u);
  const WindowMetrics& oracle = run.oracle_totals();
  for (const WindowMetrics* w : {&window(r, 0), &oracle}) {
    EXPECT_DOUBLE_EQ(w->fetch_seconds, 0.019);
    EXPECT_DOUBLE_EQ(w->data_stall_seconds, 0.015);
    EXPECT_DOUBLE_EQ(w->compute_seconds, 0.004);
    EXPECT_DOUBLE_EQ(w->wall_seconds, 0.020);
  }
}

TEST(CrashRules, AProcessThatDiesWithoutALastBatchLeavesTheRegionOpenToTheLastTimeItSent) {
  CrashRun run;
  run.process.begin("loader", "fetch.iter", kT0 + ms(1), 1);
  run.deliver(run.process.take(kT0 + ms(2)));
  run.process.end(kT0 + ms(3), 1);
  (void)run.process.take(kT0 + ms(5));  // lost
  run.process.complete("compute", "forward", kT0 + ms(8), ms(2));
  run.deliver(run.process.take(kT0 + ms(10)));

  // Long after: still open up to 10 ms, never closed, never counted.
  const RankSnapshot& r = run.tick(kT0 + sec(1));
  EXPECT_NE(r.state, RankState::kFinished);
  EXPECT_EQ(r.counters.unpaired_events, 0u);
  EXPECT_EQ(run.oracle.unpaired_events(), 0u);
  const WindowMetrics& oracle = run.oracle_totals();
  for (const WindowMetrics* w : {&window(r, 0), &oracle}) {
    EXPECT_DOUBLE_EQ(w->fetch_seconds, 0.009);
    EXPECT_DOUBLE_EQ(w->compute_seconds, 0.002);
    EXPECT_DOUBLE_EQ(w->wall_seconds, 0.010);
  }
}

}  // namespace
}  // namespace stallwatch::collector::testing
