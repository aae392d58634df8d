// SPDX-License-Identifier: MIT
#include "hta_steps.h"

#include <algorithm>

namespace stallwatch::collector {

std::vector<HtaRankSteps> hta_rank_steps(const HtaTrace& trace) {
  std::vector<HtaRankSteps> out;
  for (const HtaRankTrace& rank : trace.ranks) {
    HtaRankSteps s;
    s.rank = rank.rank;
    s.steps = rank.steps.size();
    std::vector<double> durations;
    std::int64_t total_ns = 0;
    for (const HtaStepRow& step : rank.steps) {
      total_ns += step.dur;
      durations.push_back(static_cast<double>(step.dur) / 1e3);
    }
    s.total_us = total_ns / 1000;
    if (!durations.empty()) {
      std::sort(durations.begin(), durations.end());
      s.mean_us = static_cast<double>(total_ns) / 1e3 / static_cast<double>(durations.size());
      const std::size_t n = durations.size();
      s.p50_us = n % 2 == 1 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2;
      s.max_us = durations.back();
    }
    out.push_back(s);
  }
  return out;
}

std::optional<double> hta_rank_qps(const HtaRankSteps& steps, std::int64_t batch_size) {
  if (batch_size <= 0 || steps.steps == 0 || steps.mean_us <= 0) return std::nullopt;
  return static_cast<double>(batch_size) * 1e6 / steps.mean_us;
}

std::optional<double> hta_job_qps(const std::vector<HtaRankSteps>& ranks, std::int64_t batch_size) {
  std::optional<double> total;
  for (const HtaRankSteps& r : ranks) {
    if (auto qps = hta_rank_qps(r, batch_size)) total = total.value_or(0) + *qps;
  }
  return total;
}

}  // namespace stallwatch::collector
