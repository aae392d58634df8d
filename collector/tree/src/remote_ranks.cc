// SPDX-License-Identifier: MIT
#include "tree/remote_ranks.h"

#include <algorithm>
#include <limits>
#include <set>

#include "engine/job_summary.h"
#include "tree/node_report.h"

namespace stallwatch::collector {

RemoteRanks::RemoteRanks(std::vector<std::int64_t> windows_ns, std::int64_t silent_after_ns,
                         std::int64_t forget_after_ns)
    : windows_ns_(std::move(windows_ns)),
      silent_after_ns_(silent_after_ns),
      forget_after_ns_(forget_after_ns) {}

void RemoteRanks::accept(std::span<const std::uint8_t> frame, std::int64_t now_ns) {
  NodeReport report;
  std::string error = decode_report(frame, report);
  if (error.empty() && report.windows_ns != windows_ns_) {
    error = "node '" + report.node + "' keeps other windows than this head";
  }
  // Clock offsets are added to each other (merge_into) and to times within
  // +-2^62 (decode_report) when ranks' collectives are matched; a node more
  // than 2^59 ns (18 years) off this head, or a rank as far off its node, is
  // refused, so that no such sum can overflow.
  constexpr std::int64_t kMaxOffsetNs = std::int64_t{1} << 59;
  auto far = [&](std::int64_t offset) { return offset > kMaxOffsetNs || offset < -kMaxOffsetNs; };
  if (error.empty() && far(report.now_ns - now_ns)) {
    error = "node '" + report.node + "' has a clock more than 18 years off this head's";
  }
  for (const RankSnapshot& r : report.ranks) {
    if (error.empty() && far(r.clock_offset_ns)) {
      error = "node '" + report.node + "' has a rank whose clock is more than 18 years off";
    }
  }
  std::lock_guard lock(mutex_);
  ++stats_.reports_received;
  stats_.bytes_received += frame.size();
  if (!error.empty()) {
    ++stats_.reports_rejected;
    stats_.last_rejection = std::move(error);
    return;
  }
  Node& node = nodes_[report.node];
  node.http_address = report.http_address;
  node.last_report_ns = now_ns;
  const std::int64_t sample = report.now_ns - now_ns;
  const std::int64_t second = now_ns / 1'000'000'000;
  if (node.clock_seconds.empty() || node.clock_seconds.back().first < second) {
    node.clock_seconds.emplace_back(second, sample);
  } else {
    node.clock_seconds.back().second = std::max(node.clock_seconds.back().second, sample);
  }
  while (node.clock_seconds.front().first < second - kNodeClockWindowNs / 1'000'000'000) {
    node.clock_seconds.pop_front();
  }
  node.clock_offset_ns = node.clock_seconds.front().second;
  for (const auto& [s, offset] : node.clock_seconds)
    node.clock_offset_ns = std::max(node.clock_offset_ns, offset);
  for (std::size_t i = 0; i < report.ranks.size(); ++i) {
    RankSnapshot& r = report.ranks[i];
    const CommCallsDelta& delta = report.calls[i];
    Key key{r.job, r.rank};
    Entry& e = ranks_[std::move(key)];
    std::uint64_t calls_tick = report.tick;
    if (delta.base != 0) {
      if (e.calls_tick != delta.base || !apply_comm_calls(delta, e.rank.comm_calls)) {
        calls_tick = 0;
        ++stats_.calls_out_of_step;
      }
      r.comm_calls = std::move(e.rank.comm_calls);
    }
    e.rank = std::move(r);
    e.node = report.node;
    e.received_ns = now_ns;
    e.calls_tick = calls_tick;
  }
}

void RemoteRanks::merge_into(Snapshot& snapshot, std::int64_t now_ns, const EngineConfig& config) {
  std::set<std::string, std::less<>> touched;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(
        ranks_, [&](const auto& kv) { return now_ns - kv.second.received_ns >= forget_after_ns_; });
    std::erase_if(nodes_, [&](const auto& kv) {
      return now_ns - kv.second.last_report_ns >= forget_after_ns_;
    });
    // ranks_ is ordered by job, then rank: one job's ranks at a time, with
    // room made for all of them at once (not a doubling, and a move of every
    // rank, as they are inserted).
    for (auto first = ranks_.begin(); first != ranks_.end();) {
      const std::string& name = first->first.first;
      auto last = first;
      std::size_t count = 0;
      for (; last != ranks_.end() && last->first.first == name; ++last)
        ++count;
      auto job =
          std::lower_bound(snapshot.jobs.begin(), snapshot.jobs.end(), name,
                           [](const JobSnapshot& j, const std::string& k) { return j.job < k; });
      if (job == snapshot.jobs.end() || job->job != name) {
        job = snapshot.jobs.insert(job, JobSnapshot{});
        job->job = name;
      }
      job->ranks.reserve(job->ranks.size() + count);
      for (; first != last; ++first) {
        const auto& [key, entry] = *first;
        auto at = std::lower_bound(
            job->ranks.begin(), job->ranks.end(), key.second,
            [](const RankSnapshot& r, std::int32_t rank) { return r.rank < rank; });
        if (at != job->ranks.end() && at->rank == key.second) continue;  // local wins
        RankSnapshot& r = *job->ranks.insert(at, entry.rank);
        if (auto node = nodes_.find(entry.node); node != nodes_.end()) {
          r.clock_offset_ns += node->second.clock_offset_ns;
        }
        if (r.state == RankState::kActive && now_ns - entry.received_ns >= silent_after_ns_) {
          r.state = RankState::kSilent;
        }
        touched.insert(name);
      }
    }
  }
  snapshot.counters = {};
  for (JobSnapshot& job : snapshot.jobs) {
    if (touched.contains(job.job)) {
      summarize_job_with_peers(job, snapshot.windows_ns.size(), snapshot.verdict_window_index,
                               config);
    }
    add_counters(snapshot.counters, job.counters);
  }
}

std::optional<RemoteRanks::Owner> RemoteRanks::owner(std::string_view job,
                                                     std::int32_t rank) const {
  std::lock_guard lock(mutex_);
  auto it = ranks_.find(Key{std::string(job), rank});
  if (it == ranks_.end()) return std::nullopt;
  auto node = nodes_.find(it->second.node);
  if (node == nodes_.end() || node->second.http_address.empty()) return std::nullopt;
  return Owner{node->first, node->second.http_address};
}

std::vector<RemoteRanks::NodeRanks> RemoteRanks::job_nodes(std::string_view job) const {
  std::lock_guard lock(mutex_);
  std::map<std::string_view, NodeRanks> by_node;
  for (auto it =
           ranks_.lower_bound(Key{std::string(job), std::numeric_limits<std::int32_t>::min()});
       it != ranks_.end() && it->first.first == job; ++it) {
    NodeRanks& n = by_node[it->second.node];
    if (n.node.empty()) {
      n.node = it->second.node;
      if (auto node = nodes_.find(it->second.node); node != nodes_.end()) {
        n.address = node->second.http_address;
        n.clock_offset_ns = node->second.clock_offset_ns;
      }
    }
    n.ranks.push_back(it->first.second);  // in rank order: ranks_ is sorted
  }
  std::vector<NodeRanks> out;
  for (auto& [name, n] : by_node)
    out.push_back(std::move(n));
  return out;
}

bool RemoteRanks::empty() const {
  std::lock_guard lock(mutex_);
  return ranks_.empty();
}

RemoteRanksStats RemoteRanks::stats() const {
  std::lock_guard lock(mutex_);
  RemoteRanksStats s = stats_;
  s.nodes = nodes_.size();
  s.ranks = ranks_.size();
  return s;
}

}  // namespace stallwatch::collector
