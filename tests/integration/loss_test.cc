// SPDX-License-Identifier: MIT
// Loss is always visible: events an agent had to drop, and batches lost on
// the way (sequence gaps), show per rank, per job, in the totals and in
// /metrics.

#include <gtest/gtest.h>

#include <thread>

#include "crafted_frames.h"
#include "integration_fixture.h"
#include "prometheus_samples.h"

namespace stallwatch::test {
namespace {

json wait_for_finished_row(const DaemonProcess& daemon, const std::string& job, int rank) {
  json row;
  const bool ok = wait_until(
      [&] {
        row = rank_row(daemon, job, rank);
        return row.is_object() && row.value("state", "") == "finished";
      },
      15s, 50ms);
  return ok ? row : json();
}

TEST(LossTest, AgentStartedBeforeTheDaemonReportsWhatItDropped) {
  DaemonProcess daemon(short_window_options());  // ports chosen, not started yet
  ScriptedAgent agent({"starved", 6, "early", 0, daemon.tcp_endpoint()}, daemon.dir());
  ASSERT_TRUE(agent.start());
  // The agent keeps what it records for a 2 s connect grace, then sends into
  // the void (ZMQ_IMMEDIATE): those batches are lost and counted as drops.
  std::this_thread::sleep_for(3500ms);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();

  const json row = wait_for_finished_row(daemon, "early", 0);
  ASSERT_TRUE(row.is_object()) << daemon.log();
  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value()) << agent.output();
  const AgentStats& stats = report->stats;
  // The agent's own accounting: every recorded event was sent or lost in a send.
  EXPECT_EQ(stats.events_recorded, stats.events_sent + stats.events_lost_in_send);
  EXPECT_EQ(stats.queue_depth, 0u);
  EXPECT_GT(stats.events_dropped, 0u) << "the first 3.5 s had no collector";

  // ... and the collector shows exactly that.
  EXPECT_EQ(row["agent_dropped"].get<std::uint64_t>(), stats.events_dropped);
  EXPECT_EQ(row["events_received"].get<std::uint64_t>(), stats.events_sent);
  EXPECT_EQ(row["processes"][0]["counters"]["agent_dropped"].get<std::uint64_t>(),
            stats.events_dropped);
  const json status = get_json(daemon, "/api/v1/status");
  EXPECT_EQ(status["counters"]["agent_dropped"].get<std::uint64_t>(), stats.events_dropped);
  const auto samples = parse_prometheus(daemon.get("/metrics").body);
  ASSERT_TRUE(samples.has_value());
  EXPECT_EQ(
      find_sample(*samples, "stallwatch_agent_dropped_total", {{"job_id", "early"}, {"rank", "0"}}),
      static_cast<double>(stats.events_dropped));
}

TEST(LossTest, SequenceGapsAndReportedDropsShowPerRank) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  FramePusher pusher(daemon.ipc_endpoint());
  const std::int64_t t0 = wall_clock_ns();
  // seq 0, 1, 4, 5, 9: batches 2, 3, 6, 7, 8 never arrived.
  const std::uint64_t seqs[] = {0, 1, 4, 5, 9};
  const std::uint64_t drops[] = {0, 5, 0, 7, 0};
  for (int i = 0; i < 5; ++i) {
    CraftedBatch batch{"gappy", 3, 4242, seqs[i], t0 + i * 200'000'000, drops[i], 0};
    ASSERT_TRUE(pusher.send(encode_batch(batch)));
  }
  json row;
  ASSERT_TRUE(wait_until(
      [&] {
        row = rank_row(daemon, "gappy", 3);
        return row.is_object() && row.value("batches_received", 0) == 5;
      },
      15s))
      << row.dump();
  EXPECT_EQ(row["lost_batches"], 5);
  EXPECT_EQ(row["agent_dropped"], 12);
  EXPECT_EQ(row["events_received"], 20);
  EXPECT_EQ(row["late_events"], 0);

  const json job = get_json(daemon, "/api/v1/jobs/gappy");
  EXPECT_EQ(job["counters"]["lost_batches"], 5);
  EXPECT_EQ(job["counters"]["agent_dropped"], 12);
  const json status = get_json(daemon, "/api/v1/status");
  EXPECT_EQ(status["counters"]["lost_batches"], 5);
  const auto samples = parse_prometheus(daemon.get("/metrics").body);
  ASSERT_TRUE(samples.has_value());
  const std::map<std::string, std::string> labels{{"job_id", "gappy"}, {"rank", "3"}};
  EXPECT_EQ(find_sample(*samples, "stallwatch_lost_batches_total", labels), 5.0);
  EXPECT_EQ(find_sample(*samples, "stallwatch_agent_dropped_total", labels), 12.0);
}

}  // namespace
}  // namespace stallwatch::test
