// SPDX-License-Identifier: MIT
#include "gpu_counter_tracker.h"

#include <algorithm>
#include <limits>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {
namespace {

constexpr std::int64_t kNoCell = std::numeric_limits<std::int64_t>::min();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

GpuCounterTracker::GpuCounterTracker(std::int64_t resolution_ns, std::int64_t longest_window_ns)
    : res_(std::max<std::int64_t>(resolution_ns, 1)),
      ring_cells_(static_cast<std::size_t>(std::max<std::int64_t>(longest_window_ns, 0) / res_) +
                  2) {}

std::size_t GpuCounterTracker::slot(std::int64_t k) const {
  const auto n = static_cast<std::int64_t>(ring_cells_);
  return static_cast<std::size_t>(((k % n) + n) % n);
}

GpuCounterTracker::Device* GpuCounterTracker::find_or_add(std::uint32_t device) {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), device,
                             [](const Device& d, std::uint32_t v) { return d.device < v; });
  if (it != devices_.end() && it->device == device) return &*it;
  if (devices_.size() >= kMaxDevices) return nullptr;
  Device d;
  d.device = device;
  d.cells.assign(ring_cells_, Cell{kNoCell, {}, {}});
  return &*devices_.insert(it, std::move(d));
}

void GpuCounterTracker::add(std::uint32_t device, GpuCounter counter, std::int64_t ts_ns,
                            double value) {
  Device* d = find_or_add(device);
  if (d == nullptr) {
    ++ignored_;
    return;
  }
  const auto c = static_cast<std::size_t>(counter);
  if (!d->sampled[c] || ts_ns >= d->latest_ns[c]) {
    d->sampled[c] = true;
    d->latest[c] = value;
    d->latest_ns[c] = ts_ns;
  }
  const std::int64_t k = floor_div(ts_ns, res_);
  Cell& cell = d->cells[slot(k)];
  if (cell.k != k) {
    if (cell.k > k) {  // older than the ring: counts for the totals only
      d->retired_sum[c] += value;
      d->retired_count[c] += 1;
      return;
    }
    if (cell.k != kNoCell) {
      for (std::size_t i = 0; i < kGpuCounterCount; ++i) {
        d->retired_sum[i] += cell.sum[i];
        d->retired_count[i] += cell.count[i];
      }
    }
    cell = Cell{k, {}, {}};
  }
  cell.sum[c] += value;
  cell.count[c] += 1;
}

GpuCounters GpuCounterTracker::snapshot(const std::vector<std::int64_t>& window_cells,
                                        std::int64_t t_ns) const {
  GpuCounters out;
  out.ignored_samples = ignored_;
  const std::int64_t kt = floor_div(t_ns, res_);
  const std::size_t nw = window_cells.size();
  std::vector<PerCounter> sums(nw);
  std::vector<Counts> counts(nw);
  out.devices.reserve(devices_.size());
  for (const Device& d : devices_) {
    for (std::size_t w = 0; w < nw; ++w) {
      const bool totals = window_cells[w] == 0;
      sums[w] = totals ? d.retired_sum : PerCounter{};
      counts[w] = totals ? d.retired_count : Counts{};
    }
    for (const Cell& cell : d.cells) {
      if (cell.k == kNoCell || cell.k >= kt) continue;
      for (std::size_t w = 0; w < nw; ++w) {
        if (window_cells[w] != 0 && cell.k < kt - window_cells[w]) continue;
        for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
          sums[w][c] += cell.sum[c];
          counts[w][c] += cell.count[c];
        }
      }
    }
    GpuDeviceCounters& g = out.devices.emplace_back();
    g.device = d.device;
    for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
      GpuCounterReading& r = g.counters[c];
      if (d.sampled[c]) {
        r.latest = d.latest[c];
        r.latest_ns = d.latest_ns[c];
      }
      r.means.reserve(nw);
      for (std::size_t w = 0; w < nw; ++w) {
        r.means.push_back(counts[w][c] > 0 ? sums[w][c] / static_cast<double>(counts[w][c]) : kNaN);
      }
    }
  }
  return out;
}

std::size_t GpuCounterTracker::bytes() const {
  std::size_t n = devices_.capacity() * sizeof(Device);
  for (const Device& d : devices_)
    n += d.cells.capacity() * sizeof(Cell);
  return n;
}

}  // namespace stallwatch::collector::detail
