// SPDX-License-Identifier: MIT
// The head's view of its nodes' ranks: merged beside local ones, jobs formed
// again over all of them, silent when their node stops reporting, dropped
// later, refused when the node keeps other windows.

#include "tree/remote_ranks.h"

#include <gtest/gtest.h>

#include "engine/job_summary.h"
#include "tree/node_report.h"
#include "tree_fixtures.h"

namespace stallwatch::test {
namespace {

using namespace collector;

constexpr std::int64_t kS = 1'000'000'000;
const std::vector<std::int64_t> kWindows = {2 * kS, 5 * kS, 0};

Snapshot node_snapshot(std::vector<std::int32_t> ranks, RankState state) {
  Snapshot s;
  s.windows_ns = kWindows;
  s.jobs.emplace_back().job = "train";
  for (std::int32_t r : ranks) {
    s.jobs.back().ranks.push_back(full_rank("train", r));
    s.jobs.back().ranks.back().state = state;
  }
  return s;
}

Snapshot head_snapshot() {
  Snapshot s = node_snapshot({1}, RankState::kActive);  // one local rank
  s.verdict_window_index = 0;
  summarize_job(s.jobs[0], 3, 0, VerdictThresholds{});
  s.counters = s.jobs[0].counters;
  return s;
}

void feed(RemoteRanks& remote, const Snapshot& s, const std::string& node, std::int64_t now) {
  for (const auto& frame : encode_reports(s, node, node + ":8787"))
    remote.accept(frame, now);
}

TEST(RemoteRanks, MergesBesideLocalRanksAndFormsTheJobAgain) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  feed(remote, node_snapshot({0, 1}, RankState::kActive), "a", 10 * kS);
  feed(remote, node_snapshot({2}, RankState::kActive), "b", 10 * kS);
  Snapshot s = head_snapshot();
  const std::uint64_t local_events = s.jobs[0].ranks[0].counters.events_received;
  remote.merge_into(s, 10 * kS, EngineConfig{});
  ASSERT_EQ(s.jobs.size(), 1u);
  const JobSnapshot& job = s.jobs[0];
  ASSERT_EQ(job.ranks.size(), 3u);
  EXPECT_EQ(job.ranks[0].rank, 0);
  EXPECT_EQ(job.ranks[1].rank, 1);
  EXPECT_EQ(job.ranks[1].counters.events_received, local_events);  // the local one wins
  EXPECT_EQ(job.ranks[2].rank, 2);
  EXPECT_EQ(job.counters.events_received, 1000u + 1001u + 1002u);
  EXPECT_EQ(s.counters.events_received, job.counters.events_received);
  EXPECT_EQ(job.windows.size(), 3u);
  ASSERT_TRUE(remote.owner("train", 2));
  EXPECT_EQ(remote.owner("train", 2)->address, "b:8787");
  EXPECT_EQ(remote.owner("train", 9), std::nullopt);
  // The nodes a head asks for the job's series.
  EXPECT_EQ(remote.job_nodes("train"), (std::vector<RemoteRanks::NodeRanks>{
                                           {"a", "a:8787", -10 * kS, {0, 1}},
                                           {"b", "b:8787", -10 * kS, {2}}}));  // reports at 0 s
  EXPECT_TRUE(remote.job_nodes("other").empty());
  // Their top files are the nodes'.
  EXPECT_EQ(job.ranks[2].top_files, full_rank("train", 2).top_files);
  const RemoteRanksStats st = remote.stats();
  EXPECT_EQ(st.nodes, 2u);
  EXPECT_EQ(st.ranks, 3u);
  EXPECT_EQ(st.reports_rejected, 0u);
}

TEST(RemoteRanks, RanksOfANodeThatStopsReportingTurnSilentThenAreForgotten) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  feed(remote, node_snapshot({0}, RankState::kActive), "a", 10 * kS);
  feed(remote, node_snapshot({5}, RankState::kFinished), "a", 10 * kS);
  Snapshot early;
  early.windows_ns = kWindows;
  remote.merge_into(early, 11 * kS, EngineConfig{});
  EXPECT_EQ(early.jobs[0].ranks[0].state, RankState::kActive);
  EXPECT_EQ(early.jobs[0].state, RankState::kActive);
  Snapshot late;
  late.windows_ns = kWindows;
  remote.merge_into(late, 12 * kS, EngineConfig{});
  EXPECT_EQ(late.jobs[0].ranks[0].state, RankState::kSilent);
  EXPECT_EQ(late.jobs[0].ranks[1].state, RankState::kFinished);  // finished stays finished
  EXPECT_EQ(late.jobs[0].state, RankState::kSilent);
  Snapshot gone;
  remote.merge_into(gone, 70 * kS, EngineConfig{});
  EXPECT_TRUE(gone.jobs.empty());
  EXPECT_TRUE(remote.empty());
}

TEST(RemoteRanks, RefusesReportsOfOtherWindowsAndGarbage) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  Snapshot other = node_snapshot({0}, RankState::kActive);
  other.windows_ns = {10 * kS, 0};
  feed(remote, other, "odd", kS);
  const std::uint8_t garbage[] = {1, 2, 3};
  remote.accept(garbage, kS);
  const RemoteRanksStats st = remote.stats();
  EXPECT_EQ(st.reports_received, 2u);
  EXPECT_EQ(st.reports_rejected, 2u);
  EXPECT_EQ(st.ranks, 0u);
  EXPECT_EQ(st.last_rejection, "not a node report");
}

// Clock offsets are added to each other and to times when collectives are
// matched: a node more than 2^59 ns off the head, or a rank as far off its
// node, is refused, so that no sum can overflow.
TEST(RemoteRanks, RefusesClocksDecadesOff) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  constexpr std::int64_t kLimit = std::int64_t{1} << 59;
  Snapshot far = node_snapshot({0}, RankState::kActive);
  far.now_ns = kS - kLimit - 1;
  feed(remote, far, "far", kS);
  EXPECT_EQ(remote.stats().last_rejection,
            "node 'far' has a clock more than 18 years off this head's");
  Snapshot far_rank = node_snapshot({0}, RankState::kActive);
  far_rank.jobs[0].ranks[0].clock_offset_ns = kLimit + 1;
  feed(remote, far_rank, "odd", kS);
  EXPECT_EQ(remote.stats().last_rejection,
            "node 'odd' has a rank whose clock is more than 18 years off");
  EXPECT_EQ(remote.stats().reports_rejected, 2u);

  Snapshot near = node_snapshot({0}, RankState::kActive);  // both just within
  near.now_ns = kS - kLimit;
  near.jobs[0].ranks[0].clock_offset_ns = -kLimit;
  feed(remote, near, "near", kS);
  EXPECT_EQ(remote.stats().reports_rejected, 2u);
  Snapshot s = head_snapshot();
  remote.merge_into(s, kS, EngineConfig{});
  ASSERT_EQ(s.jobs[0].ranks.size(), 2u);
  EXPECT_EQ(s.jobs[0].ranks[0].clock_offset_ns, -2 * kLimit);
}

// A remote rank's clock offset is on the head's clock: its host's against
// its node, plus the node's against the head (report time minus receive
// time), so job views that put ranks of several nodes side by side line up.
TEST(RemoteRanks, ARemoteRanksClockOffsetAddsItsNodesOffsetToTheHead) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  Snapshot a = node_snapshot({0}, RankState::kActive);
  a.now_ns = 10 * kS;
  Snapshot b = node_snapshot({1}, RankState::kActive);
  b.now_ns = 100 * kS;  // node b's clock is 90 s ahead of the head's
  feed(remote, a, "a", 10 * kS);
  feed(remote, b, "b", 10 * kS);
  // A later report that took longer to arrive does not change the estimate.
  b.now_ns = 100 * kS + 100'000'000;
  feed(remote, b, "b", 10 * kS + 300'000'000);
  Snapshot s;
  s.windows_ns = kWindows;
  remote.merge_into(s, 11 * kS, EngineConfig{});
  ASSERT_EQ(s.jobs.size(), 1u);
  ASSERT_EQ(s.jobs[0].ranks.size(), 2u);
  EXPECT_EQ(s.jobs[0].ranks[0].clock_offset_ns, -7);  // full_rank's host offset
  EXPECT_EQ(s.jobs[0].ranks[1].clock_offset_ns, 90 * kS - 7);
  const auto nodes = remote.job_nodes("train");
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].node, "b");
  EXPECT_EQ(nodes[1].clock_offset_ns, 90 * kS);
}

// Ranks 0..3 of a data-parallel job, 10 steps of 1 s from `shift` on their
// clock: each step's all_reduce starts 100 ms in, rank 3's 250 ms in, and all
// end 300 ms in. Ranks `ranks` only.
Snapshot collective_snapshot(std::vector<std::int32_t> ranks, std::int64_t shift) {
  constexpr std::int64_t kMs = 1'000'000;
  Snapshot s = node_snapshot(ranks, RankState::kActive);
  s.now_ns = shift + 10 * kS;
  for (RankSnapshot& r : s.jobs[0].ranks) {
    for (WindowMetrics& m : r.windows) {
      m.start_ns = shift;
      m.end_ns = shift + 10 * kS;
      m.wall_seconds = 10;
    }
    r.comm_calls.clear();
    for (std::int64_t step = 0; step < 10; ++step) {
      const std::int64_t begin = shift + step * kS + (r.rank == 3 ? 250 : 100) * kMs;
      r.comm_calls.push_back({begin, shift + step * kS + 300 * kMs, step, 0});
    }
  }
  return s;
}

TEST(RemoteRanks, MatchesCollectivesAcrossNodesOnTheHeadsClock) {
  RemoteRanks remote(kWindows, 2 * kS, 60 * kS);
  // Node b's clock is 5 s ahead of the head's; node a's is the head's.
  const std::int64_t ahead = 5 * kS;
  feed(remote, collective_snapshot({0, 1}, 0), "a", 10 * kS);
  feed(remote, collective_snapshot({2, 3}, ahead), "b", 10 * kS);
  Snapshot s;
  s.windows_ns = kWindows;
  remote.merge_into(s, 10 * kS, EngineConfig{});
  ASSERT_EQ(s.jobs.size(), 1u);
  const JobSnapshot& job = s.jobs[0];
  ASSERT_EQ(job.ranks.size(), 4u);
  EXPECT_EQ(job.ranks[2].clock_offset_ns, ahead - 7);  // its host's offset against node b, -7 ns
  // Each of ranks 0..2 waits 150 ms a step for rank 3, across the nodes.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(job.ranks[i].windows[0].peer_wait_seconds, 1.5, 1e-9) << "rank " << i;
  }
  EXPECT_EQ(job.ranks[3].windows[0].peer_wait_seconds, 0);
  EXPECT_EQ(job.windows[0].held_back.ranks, std::vector<std::int32_t>{3});
  EXPECT_NEAR(job.windows[0].held_back.cost_ratio, 0.15, 1e-9);
  EXPECT_EQ(job.windows[0].held_back.other_ranks, 3);
  const std::vector<PeerWaitSpan> waits = job_peer_waits(job, 0, 0, 10 * kS);
  ASSERT_EQ(waits.size(), 10u);
  EXPECT_EQ(waits[4].start_ns, 4 * kS + 100'000'000);
  EXPECT_EQ(waits[4].end_ns, 4 * kS + 250'000'000);
  EXPECT_EQ(waits[4].waiting_for, 3);
  EXPECT_TRUE(job_peer_waits(job, 3, 0, 10 * kS).empty());
}

}  // namespace
}  // namespace stallwatch::test
