// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector {

// DFAnalyzer's per-time-bin approximation ("time_approximate"), reproduced:
//   bin = (ts - first ts of the job) / granularity, by event start;
//   each event counts once, as compute, else I/O, else app I/O (DFAnalyzer's
//   conditions hook order), its whole duration in its start bin;
//   per (bin, pid, tid) durations are summed, then per bin the maximum over
//   threads is taken for each class separately;
//   unoverlapped X = max(0, X - compute) per bin (and compute - X), summed.
// All values in ns.
struct BinnedTotals {
  std::int64_t granularity_ns = 0;
  std::int64_t origin_ns = 0;
  std::uint64_t bins = 0;
  std::int64_t compute = 0;
  std::int64_t io = 0;
  std::int64_t app_io = 0;
  std::int64_t unoverlapped_io = 0;           // Σ max(0, io - compute)
  std::int64_t unoverlapped_compute = 0;      // Σ max(0, compute - io)
  std::int64_t unoverlapped_app_io = 0;       // Σ max(0, app_io - compute)
  std::int64_t unoverlapped_app_compute = 0;  // Σ max(0, compute - app_io)
};

// Accumulates BinnedTotals; memory is one entry per (bin, thread) that had
// events. Not thread-safe; parallel readers keep one each and merge them.
class BinnedTimes {
 public:
  BinnedTimes(std::int64_t origin_ns, std::int64_t granularity_ns);

  // False (and nothing counted) when ts is before the origin: the caller
  // chose a wrong origin and must start over with the true first timestamp.
  bool add(std::int64_t pid, std::int64_t tid, std::int64_t ts_ns, std::int64_t dur_ns,
           ClassMask classes);
  // Adds another accumulator's sums (same origin and granularity): the result
  // is as if its events had been added here.
  void merge(const BinnedTimes& other);
  BinnedTotals finish() const;

 private:
  struct ThreadSums {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::int64_t compute = 0;
    std::int64_t io = 0;
    std::int64_t app_io = 0;
  };
  std::int64_t origin_ns_;
  std::int64_t granularity_ns_;
  std::unordered_map<std::int64_t, std::vector<ThreadSums>> bins_;
};

}  // namespace stallwatch::collector
