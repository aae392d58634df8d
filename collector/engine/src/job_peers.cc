// SPDX-License-Identifier: MIT
#include "job_peers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/job_summary.h"
#include "window_metrics.h"

namespace stallwatch::collector::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool has_peer_wait(const WindowMetrics& w, const EngineConfig& config) {
  return w.window_ns > 0 && w.window_ns <= config.timeline_ns;
}

}  // namespace

JobPeers::JobPeers(std::span<RankSnapshot> ranks, std::span<const RankCalls> calls,
                   const EngineConfig& config, std::size_t verdict_index)
    : blame_ns_(ranks.size()), thresholds_(config.straggler), verdict_(config.verdict) {
  const PeerWaits waits = peer_wait_intervals(calls);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    RankSnapshot& r = ranks[i];
    r.peer_waits.clear();
    r.peer_waits.reserve(waits.waits[i].size());
    for (const WaitInterval& w : waits.waits[i])
      r.peer_waits.push_back({w.start_ns, w.end_ns, ranks[w.waiting_for].rank});
    blame_ns_[i].assign(r.windows.size(), 0);
    for (std::size_t w = 0; w < r.windows.size(); ++w) {
      WindowMetrics& m = r.windows[w];
      if (!has_peer_wait(m, config)) {
        m.peer_wait_seconds = kNaN;
        continue;
      }
      m.peer_wait_seconds =
          static_cast<double>(overlap_ns(waits.waits[i], m.start_ns, m.end_ns)) / 1e9;
      m.verdict = judge(m, config.verdict);
      for (const Blame& b : waits.blame[i]) {
        if (b.start_ns >= m.start_ns && b.start_ns < m.end_ns) blame_ns_[i][w] += b.cost_ns;
      }
    }
    if (verdict_index < r.windows.size()) r.verdict = r.windows[verdict_index].verdict;
  }
}

void JobPeers::fill(std::span<const RankSnapshot> ranks, std::size_t index,
                    JobWindow& job_window) const {
  double sum = 0;
  double max = kNaN;
  std::size_t n = 0;
  std::int64_t blame_total = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (index >= ranks[i].windows.size()) continue;
    const WindowMetrics& m = ranks[i].windows[index];
    blame_total += blame_ns_[i][index];
    if (!(m.wall_seconds > 0) || std::isnan(m.peer_wait_seconds)) continue;
    sum += m.peer_wait_seconds;
    max = n == 0 ? m.peer_wait_seconds : std::max(max, m.peer_wait_seconds);
    ++n;
  }
  job_window.mean.peer_wait_seconds = n > 0 ? sum / static_cast<double>(n) : kNaN;
  job_window.max.peer_wait_seconds = max;
  if (n < 2 || blame_total <= 0) return;

  std::vector<std::size_t> named;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (index >= ranks[i].windows.size()) continue;
    const double share =
        static_cast<double>(blame_ns_[i][index]) / static_cast<double>(blame_total);
    if (share >= thresholds_.blame_share) named.push_back(i);
  }
  std::sort(named.begin(), named.end(), [&](std::size_t a, std::size_t b) {
    return blame_ns_[a][index] > blame_ns_[b][index];
  });
  double cost = 0;
  std::int32_t others = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (std::find(named.begin(), named.end(), i) != named.end()) continue;
    if (index >= ranks[i].windows.size()) continue;
    const WindowMetrics& m = ranks[i].windows[index];
    if (!(m.wall_seconds > 0) || std::isnan(m.peer_wait_seconds)) continue;
    cost += m.peer_wait_seconds / m.wall_seconds;
    ++others;
  }
  if (named.empty() || others == 0) return;
  cost /= others;
  if (cost < thresholds_.cost_ratio) return;
  JobWindow::HeldBack& h = job_window.held_back;
  h.cost_ratio = cost;
  h.other_ranks = others;
  for (std::size_t i : named) {
    h.ranks.push_back(ranks[i].rank);
    h.verdicts.push_back(ranks[i].windows[index].verdict);
    h.causes.push_back(ranks[i].windows[index].cause);
  }
}

}  // namespace stallwatch::collector::detail

namespace stallwatch::collector {

void summarize_job_with_peers(JobSnapshot& job, std::size_t window_count, std::size_t verdict_index,
                              const EngineConfig& config) {
  // The calls move into the matching's input and back: no copy per tick.
  std::vector<detail::RankCalls> calls(job.ranks.size());
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    calls[i].calls = std::move(job.ranks[i].comm_calls);
    calls[i].clock_offset_ns = job.ranks[i].clock_offset_ns;
  }
  const detail::JobPeers peers(job.ranks, calls, config, verdict_index);
  summarize_job(job, window_count, verdict_index, config.verdict);
  for (std::size_t i = 0; i < job.windows.size(); ++i)
    peers.fill(job.ranks, i, job.windows[i]);
  for (std::size_t i = 0; i < job.ranks.size(); ++i)
    job.ranks[i].comm_calls = std::move(calls[i].calls);
}

std::vector<PeerWaitSpan> job_peer_waits(const JobSnapshot& job, std::int32_t rank,
                                         std::int64_t from_ns, std::int64_t to_ns) {
  std::vector<PeerWaitSpan> out;
  for (const RankSnapshot& r : job.ranks) {
    if (r.rank != rank) continue;
    for (const PeerWaitSpan& w : r.peer_waits) {
      if (w.end_ns >= from_ns && w.start_ns <= to_ns) out.push_back(w);
    }
  }
  return out;
}

}  // namespace stallwatch::collector
