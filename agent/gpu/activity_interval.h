// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>

#include "activity_record.h"
#include "clock_map.h"

namespace stallwatch::agent {

// An ActivityRecord placed on the agent's timeline: the lane of its device
// and stream (device_lane.h), or for a launch its calling thread (CUPTI's
// thread id with the lane bit cleared, so that it is never a device lane),
// and its span on the sw_now_ns clock.
struct DeviceInterval {
  std::uint32_t lane = 0;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
};

// Maps both ends through `clock`, so the duration follows the clocks' rate
// difference too; nullopt when a timestamp does not fit the agent's int64
// clock. Pure; any thread.
std::optional<DeviceInterval> to_interval(const ActivityRecord& record,
                                          const ClockMap& clock) noexcept;

}  // namespace stallwatch::agent
