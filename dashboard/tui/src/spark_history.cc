// SPDX-License-Identifier: MIT
#include "spark_history.h"

#include <algorithm>
#include <cmath>

namespace stallwatch::tui {

void SparkHistory::reset(std::string job) {
  job_ = std::move(job);
  seeded_ = false;
  ranks_.clear();
}

void SparkHistory::seed(const SeriesView& series) {
  if (series.job != job_) return;
  if (series.t.size() >= 2) {
    step_ms_ = std::max<std::int64_t>(1, std::llround((series.t[1] - series.t[0]) * 1e3));
  }
  for (const auto& [rank, values] : series.ranks) {
    auto& points = ranks_[rank];
    for (std::size_t i = 0; i < series.t.size() && i < values.size(); ++i) {
      points[std::llround(series.t[i] * 1e3)] = values[i];
    }
    trim(points);
  }
  seeded_ = true;
}

void SparkHistory::observe(std::int32_t rank, std::int64_t end_ns, std::optional<double> value) {
  if (end_ns <= 0) return;
  auto& points = ranks_[rank];
  points[end_ns / 1'000'000] = value;
  trim(points);
}

void SparkHistory::trim(std::map<std::int64_t, std::optional<double>>& points) const {
  while (points.size() > capacity_)
    points.erase(points.begin());
  // Steps are filled in values(): keep the span bounded as well.
  while (!points.empty() && (points.rbegin()->first - points.begin()->first) / step_ms_ >=
                                static_cast<std::int64_t>(capacity_)) {
    points.erase(points.begin());
  }
}

std::vector<std::optional<double>> SparkHistory::values(std::int32_t rank) const {
  std::vector<std::optional<double>> out;
  const auto it = ranks_.find(rank);
  if (it == ranks_.end() || it->second.empty()) return out;
  const auto& points = it->second;
  std::int64_t expected = points.begin()->first;
  for (const auto& [t, v] : points) {
    while (t - expected >= step_ms_) {
      out.emplace_back();
      expected += step_ms_;
    }
    out.push_back(v);
    expected = t + step_ms_;
  }
  return out;
}

}  // namespace stallwatch::tui
