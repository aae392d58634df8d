// SPDX-License-Identifier: MIT
#include "device_lane_counters.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stallwatch::collector::detail {
namespace {

constexpr std::int64_t kRes = 1'000;

std::array<NameId, kGpuCounterCount> names() {
  return {21, 22, 23, 24};  // by GpuCounter
}

std::uint32_t lane(std::uint32_t device) {
  return wire::device_lane(device, wire::kDeviceWideStream);
}

TEST(DeviceLaneCounters, KeepsNamedSamplesOnDeviceLanesForTheLanesDevice) {
  DeviceLaneCounters c(names(), kRes, 10 * kRes);
  EXPECT_TRUE(c.empty());
  c.add(lane(3), 21, 100, 40.0);                   // utilization
  c.add(wire::device_lane(3, 5), 24, 200, 250.0);  // power, from a stream lane of device 3
  EXPECT_FALSE(c.empty());
  const GpuCounters g = c.snapshot({10, 0}, 2 * kRes);
  ASSERT_EQ(g.devices.size(), 1u);
  EXPECT_EQ(g.devices[0].device, 3u);
  EXPECT_EQ(g.devices[0][GpuCounter::kUtilizationPercent].latest, 40.0);
  EXPECT_EQ(g.devices[0][GpuCounter::kPowerWatts].latest, 250.0);
  EXPECT_FALSE(g.devices[0][GpuCounter::kSmClockMhz].sampled());
  EXPECT_GT(c.bytes(), 0u);
}

TEST(DeviceLaneCounters, IgnoresThreadsAndOtherNames) {
  DeviceLaneCounters c(names(), kRes, 10 * kRes);
  c.add(1234, 21, 100, 40.0);     // a thread, not a lane
  c.add(lane(0), 99, 100, 40.0);  // a lane, not an NVML name
  EXPECT_TRUE(c.empty());
  EXPECT_TRUE(c.snapshot({10, 0}, 2 * kRes).devices.empty());
}

}  // namespace
}  // namespace stallwatch::collector::detail
