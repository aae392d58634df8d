// SPDX-License-Identifier: MIT
// The cumulative counters over a rank's finalized time (RankSnapshot::finalized):
// what they cover, that they never go back when late-arriving data changes
// the live totals, how the device signal is counted, and the step histogram.
// The property tests check them against the oracle on random scenarios.

#include <gtest/gtest.h>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

const RankSnapshot& rank0(Harness& h, std::int64_t at) {
  return *find_rank(*h.tick(at), "job", 0);
}

// 1 ms slots: the loop waits for data for the first 0.4 ms of each, then computes.
void fill_slots(BatchBuilder& b, std::int64_t from_ms, std::int64_t to_ms) {
  for (std::int64_t k = from_ms; k < to_ms; ++k) {
    b.complete("dataloader", "fetch.iter", kT0 + ms(k), us(400));
    b.complete("compute", "forward", kT0 + ms(k) + us(400), us(600));
  }
}

TEST(EngineFinalized, CountersCoverStartToTheHorizonAndLagTheLiveTotals) {
  Harness h(small_config());
  auto main = h.source(100);
  fill_slots(main, 0, 20);
  h.send(main.take(kT0 + ms(20)));  // horizon: 20 ms - 5 ms lateness
  const RankSnapshot& r = rank0(h, kT0 + ms(20));
  const FinalizedTotals& f = r.finalized;
  EXPECT_EQ(f.horizon_ns, kT0 + ms(15));
  EXPECT_EQ(f.wall_ns, ms(15));
  EXPECT_EQ(f.fetch_ns, 15 * us(400));
  EXPECT_EQ(f.app_io_ns, 15 * us(400));  // fetch.iter on the main thread is also APP_IO
  EXPECT_EQ(f.unoverlapped_app_io_ns, 15 * us(400));
  EXPECT_EQ(f.compute_ns, 15 * us(600));
  EXPECT_EQ(f.device_busy_ns, 15 * us(600));  // compute stands in
  EXPECT_EQ(f.data_stall_ns, 15 * us(400));
  EXPECT_EQ(f.steps, 15u);  // fetch ends on the main thread, before the horizon
  // The live totals reach the window end, 20 ms.
  EXPECT_DOUBLE_EQ(window(r, 0).wall_seconds, 0.020);
  EXPECT_DOUBLE_EQ(window(r, 0).data_stall_seconds, 20 * 0.0004);
}

TEST(EngineFinalized, DeviceBusyArrivingWithinTheLatenessShrinksTheLiveStallNotTheCounter) {
  Harness h(small_config());
  auto main = h.source(100);
  main.source().device_source = DeviceSource::kCupti;
  main.begin("dataloader", "fetch.iter", kT0, 1);  // the loop waits for data from 0 on
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot& before = rank0(h, kT0 + ms(10));
  EXPECT_DOUBLE_EQ(window(before, 0).data_stall_seconds, 0.010);
  EXPECT_EQ(before.finalized.data_stall_ns, ms(5));
  const FinalizedTotals counted = before.finalized;

  // The GPU was busy over [6, 10) ms after all: reported late, but within the lateness.
  main.complete("gpu", "kernel", kT0 + ms(6), ms(4), 0x80000001u);
  h.send(main.take(kT0 + ms(11)));
  const RankSnapshot& after = rank0(h, kT0 + ms(11));
  EXPECT_EQ(after.counters.late_events, 0u);
  EXPECT_DOUBLE_EQ(window(after, 0).data_stall_seconds, 0.007);  // 11 ms - 4 ms busy
  EXPECT_EQ(after.finalized.horizon_ns, kT0 + ms(6));
  EXPECT_EQ(after.finalized.data_stall_ns, ms(6));
  EXPECT_GE(after.finalized.data_stall_ns, counted.data_stall_ns);
  EXPECT_EQ(after.finalized.device_busy_ns, 0);
}

TEST(EngineFinalized, ADeviceSignalAppearingLaterNeverTakesBackWhatWasCounted) {
  Harness h(small_config());
  auto main = h.source(100);
  fill_slots(main, 0, 20);
  h.send(main.take(kT0 + ms(20)));
  const FinalizedTotals proxy = rank0(h, kT0 + ms(20)).finalized;
  EXPECT_EQ(proxy.device_busy_ns, 15 * us(600));  // compute stood in up to 15 ms
  EXPECT_EQ(proxy.data_stall_ns, 15 * us(400));

  // From now on the rank reports CUPTI: kernels cover [20, 30) ms completely,
  // so there is no device idle time and no data stall from 20 ms on. The
  // live totals judge the whole run by the new signal; the counters keep
  // what they counted and count the rest with it.
  main.source().device_source = DeviceSource::kCupti;
  fill_slots(main, 20, 30);
  main.complete("gpu", "kernel", kT0 + ms(15), ms(15), 0x80000001u);
  h.send(main.take(kT0 + ms(30)));
  const RankSnapshot& r = rank0(h, kT0 + ms(30));
  EXPECT_EQ(r.device_source, DeviceSignal::kCupti);
  EXPECT_EQ(r.finalized.horizon_ns, kT0 + ms(25));
  EXPECT_EQ(r.finalized.device_busy_ns, proxy.device_busy_ns + ms(10));
  EXPECT_EQ(r.finalized.data_stall_ns, proxy.data_stall_ns);
  EXPECT_DOUBLE_EQ(window(r, 0).device_busy_seconds, 0.015);
}

TEST(EngineFinalized, StepHistogramCountsFinalizedDurationsCumulatively) {
  EngineConfig config = small_config();
  config.step_histogram_bounds_ns = {ms(1), ms(3), ms(10)};
  Harness h(config);
  auto main = h.source(100);
  std::int64_t value = 0;
  for (std::int64_t at : {0, 1, 3, 6, 11, 12, 17})  // durations 1, 2, 3, 5, 1, 5
    main.mark("step", kT0 + ms(at), value++);
  main.counter("batch_size", kT0, 8);
  h.send(main.take(kT0 + ms(17)));  // horizon 12 ms: the steps at 12 and 17 are not final
  const RankSnapshot& r = rank0(h, kT0 + ms(17));
  EXPECT_EQ(r.finalized.steps, 5u);
  EXPECT_DOUBLE_EQ(r.finalized.samples, 40.0);
  EXPECT_EQ(r.finalized.step_durations, 4u);
  EXPECT_EQ(r.finalized.step_duration_sum_ns, ms(11));
  EXPECT_EQ(r.finalized.step_buckets, (std::vector<std::uint64_t>{1, 3, 4}));
  EXPECT_EQ(h.last->step_histogram_bounds_ns, config.step_histogram_bounds_ns);
}

TEST(EngineFinalized, NoHistogramUnlessConfigured) {
  Harness h(small_config());
  auto main = h.source(100);
  main.mark("step", kT0, 1).mark("step", kT0 + ms(2), 2);
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot& r = rank0(h, kT0 + ms(10));
  EXPECT_EQ(r.finalized.step_durations, 1u);
  EXPECT_TRUE(r.finalized.step_buckets.empty());
}

TEST(EngineFinalized, NothingIsFinalBeforeTheHorizonPassesTheStart) {
  Harness h(small_config());
  auto main = h.source(100);
  fill_slots(main, 0, 3);
  h.send(main.take(kT0 + ms(3)));
  const RankSnapshot& r = rank0(h, kT0 + ms(3));
  EXPECT_EQ(r.finalized.horizon_ns, kT0);
  EXPECT_EQ(r.finalized.wall_ns, 0);
  EXPECT_EQ(r.finalized.compute_ns, 0);
  EXPECT_EQ(r.finalized.steps, 0u);
}

}  // namespace
}  // namespace stallwatch::collector::testing
