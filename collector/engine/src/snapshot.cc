// SPDX-License-Identifier: MIT
#include "engine/snapshot.h"

#include <algorithm>

namespace stallwatch::collector {

std::string_view to_string(RankState s) {
  return catalog::term(s).name;
}

std::string_view to_string(Verdict v) {
  return catalog::term(v).name;
}

std::string_view to_string(DeviceSignal d) {
  return catalog::term(d).name;
}

std::string_view to_string(Cause c) {
  return catalog::term(c).name;
}

std::string_view to_string(GpuCounter c) {
  switch (c) {
    case GpuCounter::kUtilizationPercent:
      return "utilization_percent";
    case GpuCounter::kSmClockMhz:
      return "sm_clock_mhz";
    case GpuCounter::kMemoryUsedBytes:
      return "memory_used_bytes";
    case GpuCounter::kPowerWatts:
      return "power_watts";
  }
  return "utilization_percent";
}

std::string_view agent_counter_name(GpuCounter c) {
  switch (c) {
    case GpuCounter::kUtilizationPercent:
      return "nvml.gpu_utilization_percent";
    case GpuCounter::kSmClockMhz:
      return "nvml.sm_clock_mhz";
    case GpuCounter::kMemoryUsedBytes:
      return "nvml.memory_used_bytes";
    case GpuCounter::kPowerWatts:
      return "nvml.power_watts";
  }
  return "nvml.gpu_utilization_percent";
}

std::int64_t GpuDeviceCounters::latest_ns() const {
  std::int64_t t = std::numeric_limits<std::int64_t>::min();
  for (const GpuCounterReading& c : counters) {
    if (c.sampled()) t = std::max(t, c.latest_ns);
  }
  return t;
}

const JobSnapshot* Snapshot::find_job(std::string_view job) const {
  auto it = std::lower_bound(jobs.begin(), jobs.end(), job,
                             [](const JobSnapshot& j, std::string_view k) { return j.job < k; });
  return it != jobs.end() && it->job == job ? &*it : nullptr;
}

const HostClock* Snapshot::find_host(std::string_view host) const {
  auto it = std::lower_bound(hosts.begin(), hosts.end(), host,
                             [](const HostClock& h, std::string_view k) { return h.host < k; });
  return it != hosts.end() && it->host == host ? &*it : nullptr;
}

}  // namespace stallwatch::collector
