// SPDX-License-Identifier: MIT
#include "tui_fixtures.h"

namespace stallwatch::tui::test {

Metrics metrics(const std::string& window, Ratio idle, Ratio stall, Ratio overlap,
                Ratio steps_per_second, const std::string& verdict) {
  Metrics m;
  m.window = window;
  using catalog::Metric;
  m[Metric::kDeviceIdleRatio] = idle;
  m[Metric::kDataStallRatio] = stall;
  m[Metric::kOverlapRatio] = overlap;
  m[Metric::kStepsPerSecond] = steps_per_second;
  m[Metric::kUnoverlappedAppIoSeconds] = stall ? std::optional<double>(*stall * 60) : std::nullopt;
  m.verdict = verdict;
  return m;
}

RankRow rank_row(std::int32_t rank, Ratio idle, Ratio stall, Ratio overlap, Ratio steps_per_second,
                 const std::string& verdict) {
  RankRow r;
  r.rank = rank;
  r.state = "active";
  r.verdict = verdict;
  r.device_source = "cupti";
  for (const char* w : {"10s", "60s", "300s", "total"}) {
    r.windows.emplace(w, metrics(w, idle, stall, overlap, steps_per_second, verdict));
  }
  return r;
}

namespace {

JobSummary summary(const std::string& job, const std::string& state, std::uint64_t ranks,
                   Ratio idle, Ratio stall, Ratio overlap, Ratio steps,
                   const std::string& verdict) {
  JobSummary j;
  j.job = job;
  j.state = state;
  j.ranks = ranks;
  j.active_ranks = state == "active" ? ranks : 0;
  j.verdict = verdict;
  j.device_source = "cupti";
  for (const char* w : {"10s", "60s", "300s", "total"}) {
    Aggregate a;
    a.mean = metrics(w, idle, stall, overlap, steps, verdict);
    a.max = a.mean;
    a.verdict = verdict;
    j.summary.emplace(w, a);
  }
  return j;
}

}  // namespace

TopModel two_job_model() {
  TopModel m;
  m.url = "http://127.0.0.1:8787";
  m.windows = {"10s", "60s", "300s", "total"};
  m.verdict_window = "60s";
  m.spark_window = "10s";
  m.jobs = {summary("alpha", "active", 3, 0.4, 0.22, 0.5, 1.5, "data-starved"),
            summary("beta", "finished", 1, 0.35, 0.0, 0.2, 2.0, "io-bound")};
  JobDetail d;
  d.head = m.jobs[0];
  d.ranks = {rank_row(0, 0.7, 0.6, 0.1, 0.8, "data-starved"),
             rank_row(1, 0.05, 0.04, 0.93, 2.0, "well-overlapped"),
             rank_row(2, 0.5, 0.02, std::nullopt, 1.6, "host-bound")};
  m.detail = d;
  m.history.reset("alpha");
  return m;
}

}  // namespace stallwatch::tui::test
