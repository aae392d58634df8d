// SPDX-License-Identifier: MIT
#include "tick_stats.h"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace stallwatch::collector {

TickStats::TickStats(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

void TickStats::add(double wall_seconds, double cpu_seconds) {
  if (wall_.size() < capacity_) {
    wall_.push_back(wall_seconds);
    cpu_.push_back(cpu_seconds);
  } else {
    wall_[next_] = wall_seconds;
    cpu_[next_] = cpu_seconds;
  }
  next_ = (next_ + 1) % capacity_;
  wall_last_ = wall_seconds;
  cpu_last_ = cpu_seconds;
  wall_max_ = std::max(wall_max_, wall_seconds);
}

double TickStats::quantile(const std::vector<double>& samples, double q) {
  if (samples.empty()) return 0;
  std::vector<double> sorted(samples);
  const auto rank = static_cast<std::size_t>(
      std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size())));
  const std::size_t index = rank == 0 ? 0 : rank - 1;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(index),
                   sorted.end());
  return sorted[index];
}

double TickStats::wall_quantile(double q) const {
  return quantile(wall_, q);
}
double TickStats::cpu_quantile(double q) const {
  return quantile(cpu_, q);
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace stallwatch::collector
