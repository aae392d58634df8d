// SPDX-License-Identifier: MIT
// A node's report carries every field of its ranks' snapshots, in frames of
// bounded size, and a head refuses anything that is not a whole report.

#include "tree/node_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tree_fixtures.h"

namespace stallwatch::test {
namespace {

using namespace collector;

Snapshot snapshot_with(std::size_t ranks) {
  Snapshot s;
  s.tick = 77;
  s.now_ns = 123456789;
  s.windows_ns = {2'000'000'000, 5'000'000'000, 0};
  s.jobs.emplace_back().job = "train";
  for (std::size_t i = 0; i < ranks; ++i) {
    s.jobs.back().ranks.push_back(full_rank("train", static_cast<std::int32_t>(i)));
  }
  return s;
}

TEST(NodeReport, CarriesEveryFieldOfTheRanks) {
  const Snapshot s = snapshot_with(2);
  const auto frames = encode_reports(s, "node-a", "10.0.0.5:8787");
  ASSERT_EQ(frames.size(), 1u);
  NodeReport report;
  ASSERT_EQ(decode_report(frames[0], report), "");
  EXPECT_EQ(report.node, "node-a");
  EXPECT_EQ(report.http_address, "10.0.0.5:8787");
  EXPECT_EQ(report.tick, 77u);
  EXPECT_EQ(report.now_ns, 123456789);
  EXPECT_EQ(report.windows_ns, s.windows_ns);
  ASSERT_EQ(report.ranks.size(), 2u);
  const RankSnapshot& r = report.ranks[1];
  const RankSnapshot want = full_rank("train", 1);
  EXPECT_EQ(r.job, "train");
  EXPECT_EQ(r.host, want.host);
  EXPECT_EQ(r.clock_offset_ns, -7);
  EXPECT_EQ(r.state, RankState::kFinished);
  EXPECT_EQ(r.device_source, DeviceSignal::kCupti);
  EXPECT_EQ(r.verdict, Verdict::kDataStarved);
  EXPECT_EQ(r.step, 42);
  ASSERT_EQ(r.windows.size(), 3u);
  EXPECT_EQ(r.windows[2].wall_seconds, want.windows[2].wall_seconds);
  EXPECT_TRUE(std::isnan(r.windows[0].overlap_ratio));
  EXPECT_EQ(r.windows[1].verdict, Verdict::kIoBound);
  EXPECT_EQ(r.counters.events_received, 1001u);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].role, ProcessRole::kWorker);
  EXPECT_EQ(r.processes[0].agent_version, "0.1.0");
  EXPECT_TRUE(r.processes[0].finished);
  EXPECT_EQ(r.processes[0].counters.lost_batches, 1u);
  ASSERT_EQ(r.gpu_counters.devices.size(), 1u);
  EXPECT_EQ(r.gpu_counters.devices[0].counters[0].latest, 97);
  EXPECT_EQ(r.gpu_counters.devices[0].counters[0].means.size(), 3u);
  EXPECT_FALSE(r.gpu_counters.devices[0].counters[1].sampled());
  EXPECT_EQ(r.finalized.step_buckets, want.finalized.step_buckets);
  EXPECT_EQ(r.finalized.samples, 2.5);
  EXPECT_EQ(r.windows[1].read_bytes_per_second, 4096.5);
  EXPECT_EQ(r.windows[1].write_ops_per_second, 3);
  EXPECT_EQ(r.windows[1].launches, 41u);
  EXPECT_EQ(r.windows[1].launch_idle_ratio, 0.75);
  EXPECT_TRUE(r.windows[1].launches_captured);
  EXPECT_EQ(r.windows[1].cause, Cause::kLaunchBound);
  EXPECT_EQ(r.finalized.read_bytes, 1 << 20);
  EXPECT_EQ(r.finalized.write_ops, 7);
  EXPECT_EQ(r.comm_calls, want.comm_calls);
  EXPECT_EQ(r.top_files, want.top_files);
  EXPECT_EQ(r.top_files.size(), 3u);
  EXPECT_EQ(r.top_kernels, want.top_kernels);
  EXPECT_EQ(r.top_kernels.size(), 2u);

  // Encoding what was decoded gives the same bytes: nothing was lost.
  Snapshot again = s;
  again.jobs[0].ranks = report.ranks;
  EXPECT_EQ(encode_reports(again, "node-a", "10.0.0.5:8787"), frames);
}

// Nodes of earlier versions send no top files (4) or no top kernels (5): a
// head reads their reports, the ranks without them.
TEST(NodeReport, ReadsAReportOfThePreviousVersionWithoutTopFiles) {
  static_assert(kOldestReportVersion == 4 && kReportVersion == 6);
  {
    const Snapshot s5 = snapshot_with(2);
    const auto frames5 = encode_reports(s5, "node-a", "h:1", nullptr, 5);
    ASSERT_EQ(frames5.size(), 1u);
    NodeReport report5;
    ASSERT_EQ(decode_report(frames5[0], report5), "");
    ASSERT_EQ(report5.ranks.size(), 2u);
    EXPECT_EQ(report5.ranks[1].top_files, full_rank("train", 1).top_files);
    EXPECT_TRUE(report5.ranks[1].top_kernels.empty());
  }
  const Snapshot s = snapshot_with(2);
  const auto old_frames = encode_reports(s, "node-a", "h:1", nullptr, 4);
  const auto new_frames = encode_reports(s, "node-a", "h:1");
  ASSERT_EQ(old_frames.size(), 1u);
  EXPECT_LT(old_frames[0].size(), new_frames[0].size());
  NodeReport report;
  ASSERT_EQ(decode_report(old_frames[0], report), "");
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_TRUE(report.ranks[1].top_files.empty());
  EXPECT_EQ(report.ranks[1].finalized.step_buckets, full_rank("train", 1).finalized.step_buckets);
  EXPECT_EQ(report.ranks[1].comm_calls, full_rank("train", 1).comm_calls);
  auto older = old_frames[0];
  older[4] = static_cast<std::uint8_t>(kOldestReportVersion - 1);
  EXPECT_EQ(decode_report(older, report), "report version 3, this head reads 4 to 6");
}

TEST(NodeReport, ManyRanksAreSplitIntoBoundedSelfContainedFrames) {
  const Snapshot s = snapshot_with(3000);
  const auto frames = encode_reports(s, "node-a", "");
  ASSERT_GT(frames.size(), 1u);
  std::size_t ranks = 0;
  for (const auto& f : frames) {
    EXPECT_LE(f.size(), kMaxReportBytes);
    NodeReport report;
    ASSERT_EQ(decode_report(f, report), "");
    EXPECT_EQ(report.node, "node-a");
    for (const RankSnapshot& r : report.ranks)
      EXPECT_EQ(r.rank, static_cast<std::int32_t>(ranks++));
  }
  EXPECT_EQ(ranks, 3000u);
}

TEST(NodeReport, EmptySnapshotIsAHeartbeat) {
  const auto frames = encode_reports(Snapshot{}, "n", "");
  ASSERT_EQ(frames.size(), 1u);
  NodeReport report;
  EXPECT_EQ(decode_report(frames[0], report), "");
  EXPECT_TRUE(report.ranks.empty());
}

TEST(NodeReport, RefusesTruncatedForeignAndOtherVersionFrames) {
  const auto frame = encode_reports(snapshot_with(1), "node-a", "h:1")[0];
  for (std::size_t n = 0; n < frame.size(); ++n) {
    NodeReport report;
    EXPECT_NE(decode_report(std::span(frame.data(), n), report), "") << n;
  }
  auto longer = frame;
  longer.push_back(0);
  NodeReport report;
  EXPECT_EQ(decode_report(longer, report), "trailing bytes");
  auto other_version = frame;
  other_version[4] = static_cast<std::uint8_t>(kReportVersion + 1);
  EXPECT_NE(decode_report(other_version, report).find("version"), std::string::npos);
  auto not_ours = frame;
  not_ours[0] = 'X';
  EXPECT_EQ(decode_report(not_ours, report), "not a node report");
}

// tree_report_fuzz: a GPU sample time of INT64_MIN from a node overflowed the
// head's age computation. 64-bit values past +-2^62 (and infinities) are
// refused; the largest allowed and NaN still travel.
TEST(NodeReport, RefusesSixtyFourBitValuesPastTwoToTheSixtyTwo) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  auto decode_with = [](auto&& change) {
    Snapshot s = snapshot_with(1);
    change(s.jobs[0].ranks[0]);
    NodeReport report;
    return decode_report(encode_reports(s, "node-a", "h:1")[0], report);
  };
  EXPECT_EQ(decode_with([](RankSnapshot& r) { r.clock_offset_ns = kLimit; }), "");
  EXPECT_EQ(decode_with([](RankSnapshot& r) { r.clock_offset_ns = -kLimit; }), "");
  EXPECT_EQ(decode_with([](RankSnapshot& r) { r.clock_offset_ns = kLimit + 1; }),
            "value out of range");
  EXPECT_EQ(decode_with([](RankSnapshot& r) {
              r.gpu_counters.devices[0].counters[0].latest_ns =
                  std::numeric_limits<std::int64_t>::min();
            }),
            "value out of range");
  EXPECT_EQ(decode_with([](RankSnapshot& r) {
              r.counters.events_received = std::numeric_limits<std::uint64_t>::max();
            }),
            "value out of range");
  EXPECT_EQ(decode_with([](RankSnapshot& r) {
              r.windows[0].wall_seconds = std::numeric_limits<double>::infinity();
            }),
            "value out of range");
  EXPECT_EQ(decode_with([](RankSnapshot& r) { r.windows[0].wall_seconds = std::nan(""); }), "");
}

}  // namespace
}  // namespace stallwatch::test
