// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/name_table.h"
#include "engine/snapshot.h"
#include "gpu_counter_tracker.h"
#include "stallwatch/device_lane.h"

namespace stallwatch::collector::detail {

// Picks the NVML samples out of one rank's COUNTER events and keeps them: a
// counter on a device lane (stallwatch/device_lane.h) whose name is one of
// the agent's GPU counter names is a sample of that counter for the lane's
// device, kept in a GpuCounterTracker; any other counter on a device lane,
// and every counter on a thread, is ignored here.
//
// Takes on-time samples only (EventWalk drops late counters, and checks
// first that a counter is not the batch size). Single-threaded; owned by one
// RankTracker.
class DeviceLaneCounters {
 public:
  // `names`: the interned agent counter names, by GpuCounter.
  DeviceLaneCounters(const std::array<NameId, kGpuCounterCount>& names, std::int64_t resolution_ns,
                     std::int64_t longest_window_ns)
      : names_(names), tracker_(resolution_ns, longest_window_ns) {}

  // A COUNTER named `name` on thread or lane `tid`, at `ts_ns`.
  void add(std::uint32_t tid, NameId name, std::int64_t ts_ns, double value) {
    if (wire::is_device_lane(tid)) add_on_lane(tid, name, ts_ns, value);
  }

  // GpuCounterTracker::snapshot.
  GpuCounters snapshot(const std::vector<std::int64_t>& window_cells, std::int64_t t_ns) const {
    return tracker_.snapshot(window_cells, t_ns);
  }
  bool empty() const { return tracker_.empty(); }
  std::size_t bytes() const { return tracker_.bytes(); }

 private:
  void add_on_lane(std::uint32_t lane, NameId name, std::int64_t ts_ns, double value);

  std::array<NameId, kGpuCounterCount> names_;
  GpuCounterTracker tracker_;
};

}  // namespace stallwatch::collector::detail
