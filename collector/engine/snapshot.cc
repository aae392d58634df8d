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

const JobSnapshot* Snapshot::find_job(std::string_view job) const {
  auto it = std::lower_bound(jobs.begin(), jobs.end(), job,
                             [](const JobSnapshot& j, std::string_view k) { return j.job < k; });
  return it != jobs.end() && it->job == job ? &*it : nullptr;
}

}  // namespace stallwatch::collector
