// SPDX-License-Identifier: MIT
#include "device_lane_counters.h"

namespace stallwatch::collector::detail {

void DeviceLaneCounters::add_on_lane(std::uint32_t lane, NameId name, std::int64_t ts_ns,
                                     double value) {
  for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
    if (name == names_[c]) {
      tracker_.add(wire::lane_device(lane), static_cast<GpuCounter>(c), ts_ns, value);
      return;
    }
  }
}

}  // namespace stallwatch::collector::detail
