// SPDX-License-Identifier: MIT
// The cause of a data stall: the share of the loader's work (APP_IO) spent
// inside system I/O (IO), and the verdict's cause from it.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/metric_fields.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Two sources whose batches arrive in turn, each 10 ms late: the lateness
// covers that.
EngineConfig cause_config() {
  EngineConfig c = small_config();
  c.lateness_ns = ms(20);
  return c;
}

// A loop that waits 6 ms of every 10 ms in fetch while one worker loads the
// item: `read_ms` of each 6 ms item inside a POSIX read, the rest decoding.
std::shared_ptr<const Snapshot> run_starved_loop(Harness& h, std::int64_t read_ms,
                                                 int iterations = 10) {
  auto main = h.source(100);
  auto worker = h.source(101, ProcessRole::kWorker);
  for (int i = 0; i < iterations; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.complete("loader", "fetch.iter", at, ms(6))
        .complete("compute", "forward", at + ms(6), ms(4));
    worker.complete("data", "item", at, ms(6));
    if (read_ms > 0) worker.complete("POSIX", "read", at, ms(read_ms));
    h.send(worker.take(at + ms(10)));
    h.send(main.take(at + ms(10)));
  }
  return h.tick(kT0 + ms(10 * iterations));
}

TEST(EngineCause, LoaderInsideReadsIsStorage) {
  Harness h(cause_config());
  auto snap = run_starved_loop(h, 5);
  const RankSnapshot* r = find_rank(*snap, "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_DOUBLE_EQ(w.app_io_seconds, 0.006);
  EXPECT_DOUBLE_EQ(w.loader_io_seconds, 0.005);
  EXPECT_DOUBLE_EQ(w.loader_io_ratio, 5.0 / 6.0);
  EXPECT_TRUE(w.io_captured);
  EXPECT_EQ(w.cause, Cause::kStorage);
  EXPECT_EQ(to_string(w.cause), "storage");
}

TEST(EngineCause, LoaderOutsideReadsIsPreprocessing) {
  Harness h(cause_config());
  auto snap = run_starved_loop(h, 1);
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_DOUBLE_EQ(w.loader_io_ratio, 1.0 / 6.0);
  EXPECT_EQ(w.cause, Cause::kPreprocessing);
}

TEST(EngineCause, NoCapturedIoIsUnknownNeverAGuess) {
  Harness h(cause_config());
  auto snap = run_starved_loop(h, 0);
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_DOUBLE_EQ(w.loader_io_ratio, 0.0);
  EXPECT_FALSE(w.io_captured);
  EXPECT_EQ(w.cause, Cause::kUnknown);
}

TEST(EngineCause, CapturedIoEarlierStillCountsInALaterWindowWithoutReads) {
  Harness h(cause_config());
  auto main = h.source(100);
  auto worker = h.source(101, ProcessRole::kWorker);
  worker.complete("POSIX", "open", kT0, ms(1));
  h.send(worker.take(kT0 + ms(1)));
  for (int i = 0; i < 10; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.complete("loader", "fetch.iter", at, ms(6))
        .complete("compute", "forward", at + ms(6), ms(4));
    h.send(main.take(at + ms(10)));
  }
  auto snap = h.tick(kT0 + ms(100));
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_TRUE(w.io_captured);
  EXPECT_EQ(w.cause, Cause::kPreprocessing);
}

TEST(EngineCause, OnlyADataStarvedVerdictHasACause) {
  Harness h(cause_config());
  auto main = h.source(100);
  for (int i = 0; i < 10; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.complete("compute", "forward", at, ms(9)).complete("POSIX", "read", at, ms(2));
    h.send(main.take(at + ms(10)));
  }
  auto snap = h.tick(kT0 + ms(100));
  const WindowMetrics& w = window(*find_rank(*snap, "job", 0), ms(10));
  EXPECT_EQ(w.verdict, Verdict::kWellOverlapped);
  EXPECT_TRUE(w.io_captured);
  EXPECT_TRUE(std::isnan(w.loader_io_ratio));  // no app I/O
  EXPECT_EQ(w.cause, Cause::kNone);
}

TEST(EngineCause, TheStorageThresholdIsConfigurable) {
  EngineConfig c = cause_config();
  c.verdict.storage_io_ratio = 0.9;
  Harness h(c);
  auto snap = run_starved_loop(h, 5);
  EXPECT_EQ(window(*find_rank(*snap, "job", 0), ms(10)).cause, Cause::kPreprocessing);
  c.verdict.storage_io_ratio = 1.5;
  EXPECT_NE(validate(c), "");
}

TEST(EngineCause, TheJobsCauseIsThatOfItsMean) {
  Harness h(cause_config());
  auto snap = run_starved_loop(h, 5);
  const JobSnapshot* j = snap->find_job("job");
  ASSERT_NE(j, nullptr);
  const JobWindow& w = j->windows.front();
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_TRUE(w.mean.io_captured);
  EXPECT_DOUBLE_EQ(w.mean.loader_io_ratio, 5.0 / 6.0);
  EXPECT_EQ(w.mean.cause, Cause::kStorage);
}

TEST(EngineCause, TheLoaderShareIsACatalogMetric) {
  WindowMetrics m;
  m.loader_io_seconds = 1.5;
  m.loader_io_ratio = 0.25;
  EXPECT_EQ(metric_value(m, catalog::Metric::kLoaderIoSeconds), 1.5);
  EXPECT_EQ(metric_value(m, catalog::Metric::kLoaderIoRatio), 0.25);
}

}  // namespace
}  // namespace stallwatch::collector::testing
