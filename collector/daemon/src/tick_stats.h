// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

namespace stallwatch::collector {

// Durations of the most recent engine ticks (wall and CPU time of the tick
// thread), for the p50/p99 that /api/v1/status and /metrics report. Keeps a
// fixed window of samples (default 1200: ten minutes at a 500 ms tick).
// Owned by the tick thread.
class TickStats {
 public:
  explicit TickStats(std::size_t capacity = 1200);

  void add(double wall_seconds, double cpu_seconds);

  double wall_last() const { return wall_last_; }
  double cpu_last() const { return cpu_last_; }
  double wall_max() const { return wall_max_; }
  // Percentiles over the kept samples (nearest rank); 0 with no samples.
  double wall_quantile(double q) const;
  double cpu_quantile(double q) const;

 private:
  static double quantile(const std::vector<double>& samples, double q);

  std::size_t capacity_;
  std::size_t next_ = 0;
  std::vector<double> wall_;
  std::vector<double> cpu_;
  double wall_last_ = 0;
  double cpu_last_ = 0;
  double wall_max_ = 0;
};

// CPU time consumed by the calling thread, in seconds.
double thread_cpu_seconds();

}  // namespace stallwatch::collector
