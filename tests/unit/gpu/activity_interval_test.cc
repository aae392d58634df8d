// SPDX-License-Identifier: MIT
#include "activity_interval.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "activity_sink.h"
#include "stallwatch/device_lane.h"

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

ActivityRecord record(std::uint32_t device, std::uint32_t stream, std::uint64_t start,
                      std::uint64_t end) {
  ActivityRecord r;
  r.device = device;
  r.stream = stream;
  r.start = start;
  r.end = end;
  r.name = "k";
  return r;
}

TEST(ActivityInterval, PlacesARecordOnItsStreamLaneOnTheAgentClock) {
  ClockMap clock;
  const std::int64_t source0 = 1'700'000'000 * kSecond;
  const std::int64_t agent0 = source0 - 2 * kSecond + 500;
  ASSERT_TRUE(clock.add_sample(source0, agent0));
  const auto interval = to_interval(record(1, 7, source0 + 10'000, source0 + 35'000), clock);
  ASSERT_TRUE(interval.has_value());
  EXPECT_EQ(interval->lane, wire::device_lane(1, 7));
  EXPECT_EQ(interval->start_ns, agent0 + 10'000);
  EXPECT_EQ(interval->dur_ns, 25'000);
}

TEST(ActivityInterval, GivesEachDeviceAndStreamItsOwnLane) {
  const ClockMap clock;
  const auto a = to_interval(record(0, 7, 10, 20), clock);
  const auto b = to_interval(record(0, 13, 10, 20), clock);
  const auto c = to_interval(record(1, 7, 10, 20), clock);
  ASSERT_TRUE(a && b && c);
  EXPECT_NE(a->lane, b->lane);
  EXPECT_NE(a->lane, c->lane);
  EXPECT_NE(b->lane, c->lane);
}

TEST(ActivityInterval, RefusesTimestampsBeyondTheAgentClock) {
  const ClockMap clock;
  const auto huge = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
  EXPECT_FALSE(to_interval(record(0, 7, huge, huge + 5), clock).has_value());
  EXPECT_FALSE(to_interval(record(0, 7, 50, 40), clock).has_value());
}

TEST(DeviceLane, NeverCollidesWithRealThreadIds) {
  constexpr std::uint32_t kPidMaxLimit = 1u << 22;
  EXPECT_TRUE(wire::is_device_lane(wire::device_lane(0, 0)));
  EXPECT_GE(wire::device_lane(0, 0), kPidMaxLimit);
  EXPECT_FALSE(wire::is_device_lane(kPidMaxLimit - 1));
  EXPECT_EQ(wire::device_lane(3, 5), 0x80000000u | 3u << 24 | 5u);
  EXPECT_NE(wire::device_lane(0, wire::kDeviceWideStream), wire::device_lane(0, 0));
  EXPECT_NE(wire::device_lane(1, 0), wire::device_lane(0, 0));
}

TEST(DisplayName, DemanglesKernelNamesAndBoundsTheirLength) {
  EXPECT_EQ(display_name("_Z6matmulPfS_"), "matmul(float*, float*)");
  EXPECT_EQ(display_name("memcpy HtoD"), "memcpy HtoD");
  EXPECT_EQ(display_name("_Znot-a-mangled-name"), "_Znot-a-mangled-name");
  EXPECT_EQ(display_name(std::string(5000, 'x')).size(), 1024u);
}

}  // namespace
}  // namespace stallwatch::agent
