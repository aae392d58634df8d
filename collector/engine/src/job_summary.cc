// SPDX-License-Identifier: MIT
#include "engine/job_summary.h"

#include <algorithm>
#include <limits>

#include "job_aggregate.h"

namespace stallwatch::collector {
namespace {

RankState job_state(const std::vector<RankSnapshot>& ranks) {
  bool silent = false;
  for (const auto& r : ranks) {
    if (r.state == RankState::kActive) return RankState::kActive;
    silent |= r.state == RankState::kSilent;
  }
  return silent ? RankState::kSilent : RankState::kFinished;
}

}  // namespace

void add_counters(Counters& to, const Counters& c) {
  to.events_received += c.events_received;
  to.batches_received += c.batches_received;
  to.agent_dropped += c.agent_dropped;
  to.lost_batches += c.lost_batches;
  to.late_events += c.late_events;
  to.unpaired_events += c.unpaired_events;
}

void summarize_job(JobSnapshot& job, std::size_t window_count, std::size_t verdict_index,
                   const VerdictThresholds& thresholds) {
  job.state = job_state(job.ranks);
  job.start_ns = std::numeric_limits<std::int64_t>::max();
  job.last_seen_ns = 0;
  job.counters = {};
  for (const auto& r : job.ranks) {
    job.start_ns = std::min(job.start_ns, collector_time(r, r.start_ns));
    job.last_seen_ns = std::max(job.last_seen_ns, r.last_seen_ns);
    add_counters(job.counters, r.counters);
  }
  job.windows.clear();
  for (std::size_t i = 0; i < window_count; ++i) {
    job.windows.push_back(detail::aggregate_job_window(job.ranks, i, thresholds));
  }
  job.verdict =
      verdict_index < job.windows.size() ? job.windows[verdict_index].verdict : Verdict::kIdle;
  job.cause =
      verdict_index < job.windows.size() ? job.windows[verdict_index].mean.cause : Cause::kNone;
}

}  // namespace stallwatch::collector
