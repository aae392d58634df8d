#include "engine/snapshot.h"

#include <algorithm>

namespace stallwatch::collector {

std::string_view to_string(RankState s) {
  switch (s) {
    case RankState::kActive:
      return "active";
    case RankState::kSilent:
      return "silent";
    case RankState::kFinished:
      return "finished";
  }
  return "active";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kIdle:
      return "idle";
    case Verdict::kDataStarved:
      return "data-starved";
    case Verdict::kIoBound:
      return "io-bound";
    case Verdict::kHostBound:
      return "host-bound";
    case Verdict::kWellOverlapped:
      return "well-overlapped";
  }
  return "idle";
}

std::string_view to_string(DeviceSignal d) {
  switch (d) {
    case DeviceSignal::kComputeProxy:
      return "compute-proxy";
    case DeviceSignal::kCupti:
      return "cupti";
    case DeviceSignal::kCudaEvents:
      return "cuda-events";
    case DeviceSignal::kNvml:
      return "nvml";
  }
  return "compute-proxy";
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

}  // namespace stallwatch::collector
