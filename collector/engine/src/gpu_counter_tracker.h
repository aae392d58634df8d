// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// The NVML counters of one rank (agent/gpu), kept so a tick can show them
// beside the exact device signal: per device, the latest sample of each
// counter, and each resolution cell's sum and count of samples in a ring that
// spans the longest window, so every window's mean is read at tick time. A
// cell pushed out of the ring is folded into per-counter totals.
//
// Bounded: at most kMaxDevices devices per rank (samples of further devices
// are counted in ignored_samples and dropped); per device one ring of
// (longest window / resolution + 2) cells, allocated on its first sample.
// Single-threaded; owned by a DeviceLaneCounters. It does not pick events:
// the caller passes on-time COUNTER samples of a known NVML name on a device
// lane.
class GpuCounterTracker {
 public:
  static constexpr std::size_t kMaxDevices = 8;

  GpuCounterTracker(std::int64_t resolution_ns, std::int64_t longest_window_ns);

  void add(std::uint32_t device, GpuCounter counter, std::int64_t ts_ns, double value);

  // The counters as of window end `t_ns`; `window_cells` gives each of the
  // rank's windows in resolution cells, in snapshot order (0 = totals).
  GpuCounters snapshot(const std::vector<std::int64_t>& window_cells, std::int64_t t_ns) const;

  bool empty() const { return devices_.empty() && ignored_ == 0; }
  std::size_t bytes() const;

 private:
  using PerCounter = std::array<double, kGpuCounterCount>;
  using Counts = std::array<std::uint64_t, kGpuCounterCount>;

  struct Cell {
    std::int64_t k;  // resolution cell index; kNoCell when unused
    PerCounter sum;
    std::array<std::uint32_t, kGpuCounterCount> count;
  };
  struct Device {
    std::uint32_t device = 0;
    PerCounter latest{};
    std::array<std::int64_t, kGpuCounterCount> latest_ns{};
    std::array<bool, kGpuCounterCount> sampled{};
    std::vector<Cell> cells;
    PerCounter retired_sum{};  // samples of cells that left the ring
    Counts retired_count{};
  };

  Device* find_or_add(std::uint32_t device);
  std::size_t slot(std::int64_t k) const;

  std::int64_t res_;
  std::size_t ring_cells_;
  std::vector<Device> devices_;  // sorted by device
  std::uint64_t ignored_ = 0;
};

}  // namespace stallwatch::collector::detail
