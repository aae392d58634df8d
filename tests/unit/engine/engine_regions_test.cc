// SPDX-License-Identifier: MIT
// Interval metrics of one rank from regions, with explicit times.

#include <gtest/gtest.h>

#include <cmath>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// A loop that waits 6 ms in fetch and computes 4 ms, ten times.
void send_starved_loop(Harness& h, BatchBuilder& main, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    main.complete("loader", "fetch.iter", kT0 + ms(10 * i), ms(6))
        .complete("compute", "forward", kT0 + ms(10 * i + 6), ms(4));
    h.send(main.take(kT0 + ms(10 * i + 10)));
  }
}

TEST(EngineRegions, DataStarvedLoopUnderComputeProxy) {
  Harness h(small_config());
  auto main = h.source(100);
  send_starved_loop(h, main, 10);
  auto snap = h.tick(kT0 + ms(100));
  const RankSnapshot* r = find_rank(*snap, "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->device_source, DeviceSignal::kComputeProxy);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_EQ(w.start_ns, kT0 + ms(90));
  EXPECT_EQ(w.end_ns, kT0 + ms(100));
  EXPECT_DOUBLE_EQ(w.wall_seconds, 0.010);
  EXPECT_DOUBLE_EQ(w.compute_seconds, 0.004);
  EXPECT_DOUBLE_EQ(w.fetch_seconds, 0.006);
  EXPECT_DOUBLE_EQ(w.app_io_seconds, 0.006);
  EXPECT_DOUBLE_EQ(w.unoverlapped_app_io_seconds, 0.006);
  EXPECT_DOUBLE_EQ(w.device_busy_seconds, 0.004);
  EXPECT_DOUBLE_EQ(w.data_stall_seconds, 0.006);
  EXPECT_DOUBLE_EQ(w.data_stall_ratio, 0.6);
  EXPECT_DOUBLE_EQ(w.device_idle_ratio, 0.6);
  EXPECT_DOUBLE_EQ(w.overlap_ratio, 0.0);
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);
  EXPECT_EQ(r->verdict, Verdict::kDataStarved);

  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.start_ns, kT0);
  EXPECT_DOUBLE_EQ(total.wall_seconds, 0.100);
  EXPECT_DOUBLE_EQ(total.compute_seconds, 0.040);
  EXPECT_DOUBLE_EQ(total.data_stall_seconds, 0.060);
  EXPECT_EQ(total.steps, 10u);  // one FETCH end per iteration: no step marks
  EXPECT_DOUBLE_EQ(total.step_seconds_p50, 0.010);
}

TEST(EngineRegions, RealDeviceSignalUsesDeviceBusy) {
  Harness h(small_config());
  auto main = h.source(100);
  main.source().device_source = DeviceSource::kCupti;
  for (int i = 0; i < 6; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.complete("loader", "fetch.iter", at, ms(6))
        .complete("gpu", "kernel", at + ms(1), ms(2), 7)
        .complete("compute", "forward", at + ms(6), ms(4))
        .complete("gpu", "kernel", at + ms(6), ms(3), 7);
    h.send(main.take(at + ms(10)));
  }
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(60)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->device_source, DeviceSignal::kCupti);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_DOUBLE_EQ(w.device_busy_seconds, 0.005);
  EXPECT_DOUBLE_EQ(w.device_idle_ratio, 0.5);
  EXPECT_DOUBLE_EQ(w.data_stall_seconds, 0.004);  // |FETCH \ DEVICE_BUSY|
  EXPECT_DOUBLE_EQ(w.data_stall_ratio, 0.4);
}

TEST(EngineRegions, CudaEventsAreADeviceSignalNvmlIsNot) {
  for (auto [source, want] : {std::pair{DeviceSource::kCudaEvents, DeviceSignal::kCudaEvents},
                              std::pair{DeviceSource::kNvml, DeviceSignal::kComputeProxy}}) {
    Harness h(small_config());
    auto main = h.source(100);
    main.source().device_source = source;
    if (source == DeviceSource::kCudaEvents) main.complete("gpu", "kernel", kT0, ms(2), 7);
    main.complete("compute", "forward", kT0, ms(6));
    h.send(main.take(kT0 + ms(10)));
    const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->device_source, want);
    EXPECT_DOUBLE_EQ(window(*r, ms(10)).device_busy_seconds,
                     want == DeviceSignal::kComputeProxy ? 0.006 : 0.002);
  }
}

// A rank whose processes declare no device source (a replayed trace, NVML
// only) but send device-busy regions is judged on them, from its first one.
TEST(EngineRegions, DeviceEventsWithoutADeclaredSourceAreTheTraceSignal) {
  for (auto source : {DeviceSource::kNone, DeviceSource::kNvml}) {
    Harness h(small_config());
    auto main = h.source(100);
    main.source().device_source = source;
    main.complete("loader", "fetch.iter", kT0, ms(6))
        .complete("compute", "forward", kT0 + ms(6), ms(4));
    h.send(main.take(kT0 + ms(10)));
    const RankSnapshot* before = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
    ASSERT_NE(before, nullptr);
    EXPECT_EQ(before->device_source, DeviceSignal::kComputeProxy);
    main.complete("loader", "fetch.iter", kT0 + ms(10), ms(6))
        .complete("gpu", "kernel", kT0 + ms(12), ms(3), 7)
        .complete("compute", "forward", kT0 + ms(16), ms(4));
    h.send(main.take(kT0 + ms(20)));
    const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->device_source, DeviceSignal::kTrace);
    const WindowMetrics& w = window(*r, ms(10));
    EXPECT_DOUBLE_EQ(w.device_busy_seconds, 0.003);
    EXPECT_DOUBLE_EQ(w.data_stall_seconds, 0.003);  // |FETCH \ DEVICE_BUSY|, not compute
  }
}

TEST(EngineRegions, LifetimeStartsAtTheAgentStartClippedToTheFirstBatch) {
  struct Case {
    std::int64_t claimed;
    std::int64_t want;
  };
  // Unset, or later than the first event: the first event (or sent_at) is the start.
  for (const Case k :
       {Case{kT0 + ms(1), kT0 + ms(1)}, Case{0, kT0 + ms(3)}, Case{kT0 + ms(8), kT0 + ms(3)}}) {
    Harness h(small_config());
    auto main = h.source(100);
    main.source().start_ns = k.claimed;
    main.complete("compute", "forward", kT0 + ms(3), ms(4));
    h.send(main.take(kT0 + ms(10)));
    const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->start_ns, k.want);
    EXPECT_EQ(window(*r, 0).start_ns, k.want);
    EXPECT_DOUBLE_EQ(window(*r, 0).wall_seconds, static_cast<double>(kT0 + ms(10) - k.want) / 1e9);
  }
}

TEST(EngineRegions, UnionsAcrossThreadsAndProcessesAndUnoverlappedParts) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  main.complete("compute", "forward", kT0, ms(10))
      .complete("POSIX", "read", kT0 + ms(5), ms(10), 201);
  worker.complete("POSIX", "read", kT0 + ms(12), ms(8))
      .complete("data", "decode", kT0 + ms(18), ms(7))
      .complete("POSIX", "read", kT0 + ms(13), ms(2), 301);
  h.send(main.take(kT0 + ms(16)));
  h.send(worker.take(kT0 + ms(26)));
  h.send(main.take(kT0 + ms(30)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(30)), "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& w = window(*r, ms(30));
  EXPECT_DOUBLE_EQ(w.wall_seconds, 0.030);
  EXPECT_DOUBLE_EQ(w.compute_seconds, 0.010);
  EXPECT_DOUBLE_EQ(w.io_seconds, 0.015);
  EXPECT_DOUBLE_EQ(w.unoverlapped_io_seconds, 0.010);
  EXPECT_DOUBLE_EQ(w.app_io_seconds, 0.007);
  EXPECT_DOUBLE_EQ(w.unoverlapped_app_io_seconds, 0.007);
  EXPECT_DOUBLE_EQ(w.unoverlapped_all_io_seconds, 0.015);
  EXPECT_DOUBLE_EQ(w.unoverlapped_compute_seconds, 0.005);
  EXPECT_DOUBLE_EQ(w.overlap_ratio, 0.0);
  EXPECT_EQ(r->processes.size(), 2u);
}

TEST(EngineRegions, OpenFetchCountsWhileStuck) {
  Harness h(small_config());
  auto main = h.source(100);
  main.begin("loader", "fetch.iter", kT0 + ms(10), 1);
  h.send(main.take(kT0 + ms(10)));
  for (int i = 2; i <= 10; ++i)
    h.send(main.take(kT0 + ms(10 * i)));
  auto snap = h.tick(kT0 + ms(100));
  const RankSnapshot* r = find_rank(*snap, "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(window(*r, ms(10)).data_stall_ratio, 1.0);
  EXPECT_EQ(window(*r, ms(10)).verdict, Verdict::kDataStarved);
  EXPECT_DOUBLE_EQ(window(*r, 0).fetch_seconds, 0.090);
  EXPECT_EQ(r->processes[0].open_regions, 1u);

  main.end(kT0 + ms(104), 1);
  h.send(main.take(kT0 + ms(110)));
  r = find_rank(*h.tick(kT0 + ms(110)), "job", 0);
  EXPECT_DOUBLE_EQ(window(*r, 0).fetch_seconds, 0.094);
  EXPECT_EQ(r->processes[0].open_regions, 0u);
  EXPECT_EQ(r->counters.unpaired_events, 0u);
}

TEST(EngineRegions, KilledWorkersOpenRegionStopsAtItsWatermark) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  worker.begin("POSIX", "read", kT0 + ms(20), 1);
  h.send(worker.take(kT0 + ms(20)));
  h.send(worker.take(kT0 + ms(30)));
  for (int i = 1; i <= 10; ++i)
    h.send(main.take(kT0 + ms(10 * i)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(100)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(window(*r, 0).io_seconds, 0.010);
  EXPECT_DOUBLE_EQ(window(*r, ms(10)).io_seconds, 0.0);
}

TEST(EngineRegions, FinalBatchClosesOpenRegionsAsUnpaired) {
  Harness h(small_config());
  auto main = h.source(100);
  main.begin("compute", "train", kT0 + ms(10), 1);
  h.send(main.take(kT0 + ms(20)));
  h.send(main.take(kT0 + ms(50) + us(300), true));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(60)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->state, RankState::kFinished);
  EXPECT_EQ(r->end_ns, kT0 + ms(50) + us(300));
  EXPECT_EQ(r->counters.unpaired_events, 1u);
  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.end_ns, kT0 + ms(50) + us(300));
  EXPECT_DOUBLE_EQ(total.wall_seconds, 0.0503);
  EXPECT_DOUBLE_EQ(total.compute_seconds, 0.0403);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_EQ(w.start_ns, kT0 + ms(41));  // windows of a finished rank end at its end, rounded up
  EXPECT_DOUBLE_EQ(w.wall_seconds, 0.0093);
}

TEST(EngineRegions, EndWithoutBeginIsUnpairedAndIgnored) {
  Harness h(small_config());
  auto main = h.source(100);
  main.end(kT0 + ms(10), 9);
  h.send(main.take(kT0 + ms(12)));
  h.send(main.take(kT0 + ms(30)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(30)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->counters.unpaired_events, 1u);
  EXPECT_DOUBLE_EQ(window(*r, 0).compute_seconds, 0.0);
}

TEST(EngineRegions, EndArrivingBeforeItsBeginWithinLatenessPairs) {
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "End first" : "in order");
    Harness h(small_config());
    auto main = h.source(100);
    h.send(main.take(kT0));
    main.begin("compute", "forward", kT0 + ms(6), 4, 555);
    DecodedBatch first = main.take(kT0 + ms(7));
    main.end(kT0 + ms(8), 4, 555);
    DecodedBatch second = main.take(kT0 + ms(9));
    h.send(reversed ? second : first);
    h.send(reversed ? first : second);
    h.send(main.take(kT0 + ms(20)));
    const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
    ASSERT_NE(r, nullptr);
    EXPECT_DOUBLE_EQ(window(*r, 0).compute_seconds, 0.002);
    EXPECT_EQ(r->counters.unpaired_events, 0u);
    EXPECT_EQ(r->processes[0].open_regions, 0u);
  }
}

TEST(EngineRegions, ConfiguredRulesOverrideDefaults) {
  EngineConfig c = small_config();
  c.classes.prepend({ClassRule{{"POSIX"}, {"read"}, false, class_bit(EventClass::kFetch)}});
  Harness h(c);
  auto worker = h.source(300, ProcessRole::kWorker);
  worker.complete("POSIX", "read", kT0, ms(4)).complete("POSIX", "write", kT0 + ms(4), ms(2));
  h.send(worker.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_DOUBLE_EQ(w.fetch_seconds, 0.004);
  EXPECT_DOUBLE_EQ(w.app_io_seconds, 0.004);
  EXPECT_DOUBLE_EQ(w.io_seconds, 0.002);
  EXPECT_DOUBLE_EQ(w.data_stall_seconds, 0.004);
}

TEST(EngineRegions, LoaderFetchIsFetchOnlyOnTheMainProcessMainThread) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  main.complete("dataloader", "fetch", kT0 + ms(3), ms(2), 101);  // another thread of main
  main.complete("dataloader", "fetch", kT0 + ms(6), ms(1));       // the main thread
  worker.complete("dataloader", "fetch", kT0 + ms(2), ms(3));     // worker's own main thread
  h.send(main.take(kT0 + ms(7)));
  h.send(worker.take(kT0 + ms(8)));
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  ASSERT_NE(r, nullptr);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_DOUBLE_EQ(w.fetch_seconds, 0.001);
  EXPECT_DOUBLE_EQ(w.app_io_seconds, 0.004);
}

TEST(EngineRegions, HeartbeatsMoveTheWindowsOfAnIdleRank) {
  Harness h(small_config());
  auto main = h.source(100);
  h.send(main.take(kT0 + ms(3)));
  h.send(main.take(kT0 + ms(20) + us(500)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(21)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->watermark_ns, kT0 + ms(20) + us(500));
  const WindowMetrics& total = window(*r, 0);
  EXPECT_EQ(total.end_ns, kT0 + ms(20));
  EXPECT_DOUBLE_EQ(total.wall_seconds, 0.020);
  EXPECT_EQ(total.verdict, Verdict::kIdle);
  EXPECT_TRUE(std::isnan(total.overlap_ratio));
  EXPECT_TRUE(std::isnan(total.step_seconds_p50));
  EXPECT_DOUBLE_EQ(total.device_idle_ratio, 1.0);
}

}  // namespace
}  // namespace stallwatch::collector::testing
