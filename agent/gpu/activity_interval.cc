// SPDX-License-Identifier: MIT
#include "activity_interval.h"

#include <algorithm>
#include <limits>

#include "stallwatch/device_lane.h"

namespace stallwatch::agent {

std::optional<DeviceInterval> to_interval(const ActivityRecord& record,
                                          const ClockMap& clock) noexcept {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (record.start > kMax || record.end > kMax || record.end < record.start) return std::nullopt;
  const std::int64_t start = clock.to_agent(static_cast<std::int64_t>(record.start));
  const std::int64_t end = clock.to_agent(static_cast<std::int64_t>(record.end));
  const std::uint32_t lane = record.kind == ActivityKind::kLaunch
                                 ? record.thread & ~wire::kLaneBit
                                 : wire::device_lane(record.device, record.stream);
  return DeviceInterval{lane, start, std::max<std::int64_t>(end - start, 0)};
}

}  // namespace stallwatch::agent
