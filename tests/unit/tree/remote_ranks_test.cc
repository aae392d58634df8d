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
  remote.merge_into(s, 10 * kS, VerdictThresholds{});
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
  remote.merge_into(early, 11 * kS, VerdictThresholds{});
  EXPECT_EQ(early.jobs[0].ranks[0].state, RankState::kActive);
  EXPECT_EQ(early.jobs[0].state, RankState::kActive);
  Snapshot late;
  late.windows_ns = kWindows;
  remote.merge_into(late, 12 * kS, VerdictThresholds{});
  EXPECT_EQ(late.jobs[0].ranks[0].state, RankState::kSilent);
  EXPECT_EQ(late.jobs[0].ranks[1].state, RankState::kFinished);  // finished stays finished
  EXPECT_EQ(late.jobs[0].state, RankState::kSilent);
  Snapshot gone;
  remote.merge_into(gone, 70 * kS, VerdictThresholds{});
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
  remote.merge_into(s, 11 * kS, VerdictThresholds{});
  ASSERT_EQ(s.jobs.size(), 1u);
  ASSERT_EQ(s.jobs[0].ranks.size(), 2u);
  EXPECT_EQ(s.jobs[0].ranks[0].clock_offset_ns, -7);  // full_rank's host offset
  EXPECT_EQ(s.jobs[0].ranks[1].clock_offset_ns, 90 * kS - 7);
}

}  // namespace
}  // namespace stallwatch::test
