// SPDX-License-Identifier: MIT
#pragma once

// The recent history of one metric for each rank of one job: what the rank
// table's sparklines draw. Seeded from /series (one point per engine
// resolution step) and extended from WebSocket ticks, keyed by the window's
// end time so that a seed and the live ticks agree point for point. Bounded:
// at most `capacity` points per rank. UI thread only.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api_model.h"

namespace stallwatch::tui {

class SparkHistory {
 public:
  explicit SparkHistory(std::size_t capacity = 240) : capacity_(capacity) {}

  // Forgets everything and follows `job` from now on.
  void reset(std::string job);
  const std::string& job() const { return job_; }

  // Adds every point of `series` (of this job); existing points are replaced.
  void seed(const SeriesView& series);
  // Records `value` of `rank` for the window ending at `end_ns`.
  void observe(std::int32_t rank, std::int64_t end_ns, std::optional<double> value);

  // Oldest first, one entry per step from the first point to the newest;
  // steps with no point are empty.
  std::vector<std::optional<double>> values(std::int32_t rank) const;
  bool seeded() const { return seeded_; }

 private:
  void trim(std::map<std::int64_t, std::optional<double>>& points) const;

  std::size_t capacity_;
  std::string job_;
  bool seeded_ = false;
  std::int64_t step_ms_ = 1000;
  // rank -> (window end in ms -> value)
  std::map<std::int32_t, std::map<std::int64_t, std::optional<double>>> ranks_;
};

}  // namespace stallwatch::tui
