// SPDX-License-Identifier: MIT
// NVML counters (agent/gpu: cat gpu_counters on a device's device-wide lane)
// kept per rank and device beside the exact device signal: latest sample,
// mean over each window, bounds, and counters that are not NVML's.

#include <gtest/gtest.h>

#include <cmath>

#include "gpu_counter_tracker.h"
#include "stallwatch/device_lane.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

constexpr std::uint32_t lane(std::uint32_t device) {
  return wire::device_lane(device, wire::kDeviceWideStream);
}

const GpuCounterReading& reading(const RankSnapshot& r, std::size_t device, GpuCounter c) {
  return r.gpu_counters.devices.at(device)[c];
}

// Windows of small_config(): 10 ms, 30 ms, then the totals.
constexpr std::size_t k10ms = 0;
constexpr std::size_t k30ms = 1;
constexpr std::size_t kTotal = 2;

TEST(EngineGpuCounters, LatestAndWindowMeansPerDevice) {
  Harness h(small_config());
  auto main = h.source(100);
  for (int i = 0; i < 40; ++i) {
    main.counter("nvml.gpu_utilization_percent", kT0 + ms(i), i, lane(0));
    main.counter("nvml.power_watts", kT0 + ms(i), 250, lane(1));
  }
  main.counter("nvml.sm_clock_mhz", kT0 + ms(15), 1410, lane(0));
  h.send(main.take(kT0 + ms(40)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(40)), "job", 0);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->gpu_counters.devices.size(), 2u);
  EXPECT_EQ(r->gpu_counters.devices[0].device, 0u);
  EXPECT_EQ(r->gpu_counters.devices[1].device, 1u);

  const GpuCounterReading& util = reading(*r, 0, GpuCounter::kUtilizationPercent);
  EXPECT_EQ(util.latest, 39);
  EXPECT_EQ(util.latest_ns, kT0 + ms(39));
  ASSERT_EQ(util.means.size(), r->windows.size());
  EXPECT_DOUBLE_EQ(util.means[k10ms], 34.5);  // samples 30..39
  EXPECT_DOUBLE_EQ(util.means[k30ms], 24.5);  // samples 10..39
  // Totals keep samples the 32-cell ring has already let go of.
  EXPECT_DOUBLE_EQ(util.means[kTotal], 19.5);

  const GpuCounterReading& clock = reading(*r, 0, GpuCounter::kSmClockMhz);
  EXPECT_EQ(clock.latest, 1410);
  EXPECT_TRUE(std::isnan(clock.means[k10ms])) << "its one sample is 25 ms old";
  EXPECT_DOUBLE_EQ(clock.means[k30ms], 1410);
  EXPECT_FALSE(reading(*r, 0, GpuCounter::kPowerWatts).sampled());
  EXPECT_TRUE(std::isnan(reading(*r, 0, GpuCounter::kPowerWatts).means[kTotal]));

  EXPECT_DOUBLE_EQ(reading(*r, 1, GpuCounter::kPowerWatts).means[k10ms], 250);
  EXPECT_FALSE(reading(*r, 1, GpuCounter::kUtilizationPercent).sampled());
  EXPECT_EQ(r->gpu_counters.devices[1].latest_ns(), kT0 + ms(39));
  EXPECT_EQ(r->gpu_counters.ignored_samples, 0u);
}

TEST(EngineGpuCounters, MeansFollowTheSlidingWindowsAndIgnoreLateSamples) {
  Harness h(small_config());
  auto main = h.source(100);
  for (int i = 0; i < 20; ++i)
    main.counter("nvml.gpu_utilization_percent", kT0 + ms(i), 90, lane(0));
  h.send(main.take(kT0 + ms(20)));
  for (int i = 20; i < 40; ++i)
    main.counter("nvml.gpu_utilization_percent", kT0 + ms(i), 10, lane(0));
  h.send(main.take(kT0 + ms(40)));
  main.counter("nvml.gpu_utilization_percent", kT0 + ms(30), 1000, lane(0));  // 5 ms lateness
  h.send(main.take(kT0 + ms(41)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(41)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->counters.late_events, 1u);
  const GpuCounterReading& util = reading(*r, 0, GpuCounter::kUtilizationPercent);
  EXPECT_EQ(util.latest, 10);
  EXPECT_DOUBLE_EQ(util.means[k10ms], 10);
  EXPECT_DOUBLE_EQ(util.means[k30ms], (9 * 90 + 20 * 10) / 29.0);  // samples 11..39
  EXPECT_DOUBLE_EQ(util.means[kTotal], 50);

  // The rank goes quiet: its windows move on, the latest sample stays.
  h.send(main.take(kT0 + ms(100)));
  r = find_rank(*h.tick(kT0 + ms(100)), "job", 0);
  const GpuCounterReading& later = reading(*r, 0, GpuCounter::kUtilizationPercent);
  EXPECT_EQ(later.latest, 10);
  EXPECT_TRUE(std::isnan(later.means[k10ms]));
  EXPECT_TRUE(std::isnan(later.means[k30ms]));
  EXPECT_DOUBLE_EQ(later.means[kTotal], 50);
}

TEST(EngineGpuCounters, AtMostEightDevicesPerRankTheRestCounted) {
  Harness h(small_config());
  auto main = h.source(100);
  for (std::uint32_t d = 0; d < 10; ++d)
    main.counter("nvml.memory_used_bytes", kT0 + ms(1), 1000 + d, lane(d == 9 ? 127 : d));
  main.counter("nvml.memory_used_bytes", kT0 + ms(2), 5, lane(8));
  main.counter("nvml.memory_used_bytes", kT0 + ms(2), 7, lane(3));
  h.send(main.take(kT0 + ms(3)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(3)), "job", 0);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->gpu_counters.devices.size(), detail::GpuCounterTracker::kMaxDevices);
  for (std::uint32_t d = 0; d < 8; ++d)
    EXPECT_EQ(r->gpu_counters.devices[d].device, d);
  EXPECT_EQ(r->gpu_counters.ignored_samples, 3u);  // devices 8 (twice) and 127
  EXPECT_EQ(reading(*r, 3, GpuCounter::kMemoryUsedBytes).latest, 7);
  EXPECT_DOUBLE_EQ(reading(*r, 3, GpuCounter::kMemoryUsedBytes).means[kTotal], 505);
}

TEST(EngineGpuCounters, OtherCountersAndHostThreadsAreNotGpuCounters) {
  Harness h(small_config());
  auto main = h.source(100);
  main.complete("compute", "forward", kT0, ms(8))
      .counter("nvml.gpu_utilization_percent", kT0 + ms(1), 93)  // the main thread, not a lane
      .counter("nvml.temperature_c", kT0 + ms(1), 70, lane(0))
      .counter("queue_depth", kT0 + ms(2), 4, lane(0))
      .counter("batch_size", kT0 + ms(2), 32, lane(0))
      .mark("step", kT0 + ms(2), 1)
      .mark("step", kT0 + ms(6), 2);
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->gpu_counters.devices.empty());
  EXPECT_EQ(r->gpu_counters.ignored_samples, 0u);
  const WindowMetrics& w = window(*r, 0);
  EXPECT_EQ(r->device_source, DeviceSignal::kComputeProxy);
  EXPECT_DOUBLE_EQ(w.compute_seconds, 0.008);
  EXPECT_DOUBLE_EQ(w.device_busy_seconds, 0.008);  // the proxy, not the counters
  EXPECT_FALSE(std::isnan(w.samples_per_second)) << "batch_size still counts on a lane";
}

TEST(EngineGpuCounters, CountersNeverMakeTheDeviceBusy) {
  Harness h(small_config());
  auto main = h.source(100);
  main.source().device_source = DeviceSource::kCupti;
  main.complete("gpu", "matmul", kT0 + ms(2), ms(3), wire::device_lane(0, 7));
  for (int i = 0; i < 10; ++i)
    main.counter("nvml.gpu_utilization_percent", kT0 + ms(i), 100, lane(0));
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->device_source, DeviceSignal::kCupti);
  const WindowMetrics& w = window(*r, ms(10));
  EXPECT_DOUBLE_EQ(w.device_busy_seconds, 0.003);
  EXPECT_DOUBLE_EQ(w.device_idle_ratio, 0.7);
  EXPECT_DOUBLE_EQ(reading(*r, 0, GpuCounter::kUtilizationPercent).means[k10ms], 100);
}

TEST(EngineGpuCounters, LaneDecoding) {
  EXPECT_TRUE(wire::is_device_lane(wire::device_lane(0, 0)));
  EXPECT_FALSE(wire::is_device_lane(4'194'303));  // PID_MAX_LIMIT - 1
  EXPECT_EQ(wire::device_lane(3, 7), 0x83000007u);
  EXPECT_EQ(wire::lane_device(wire::device_lane(127, 5)), 127u);
  EXPECT_EQ(wire::lane_stream(wire::device_lane(2, wire::kDeviceWideStream)),
            wire::kDeviceWideStream);
  EXPECT_EQ(wire::lane_stream(wire::device_lane(2, 0x1000007)), 7u);  // streams fold into 24 bits
}

}  // namespace
}  // namespace stallwatch::collector::testing
