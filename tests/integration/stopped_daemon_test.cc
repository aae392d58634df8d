// SPDX-License-Identifier: MIT
// The daemon frozen (SIGSTOP) for seconds under load, then continued: no
// agent waits for it (its steps keep their length), what the agents could
// not send is counted exactly, and the daemon catches up.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

constexpr int kRanks = 2;

// The longest step the agent took: from one step mark to the next.
double longest_step_seconds(const AgentReport& report) {
  double longest = 0;
  for (std::size_t i = 1; i < report.step_marks.size(); ++i) {
    longest = std::max(
        longest, static_cast<double>(report.step_marks[i].hi - report.step_marks[i - 1].lo) / 1e9);
  }
  return longest;
}

TEST(StoppedDaemonTest, AgentsDoNotWaitAndDropsAreCountedExactly) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  std::vector<std::unique_ptr<ScriptedAgent>> agents;
  for (int rank = 0; rank < kRanks; ++rank) {
    agents.push_back(std::make_unique<ScriptedAgent>(
        AgentRun{"starved", 7, "frozen", rank, daemon.tcp_endpoint()}, daemon.dir()));
    ASSERT_TRUE(agents.back()->start());
  }
  ASSERT_TRUE(wait_until(
      [&] {
        for (int rank = 0; rank < kRanks; ++rank) {
          const json row = rank_row(daemon, "frozen", rank);
          if (!row.is_object() || row.value("events_received", 0) < 100) return false;
        }
        return true;
      },
      15s));
  ::kill(daemon.pid(), SIGSTOP);
  std::this_thread::sleep_for(3s);
  ::kill(daemon.pid(), SIGCONT);

  for (auto& agent : agents)
    ASSERT_EQ(agent->process().wait(30s), 0) << agent->output();
  for (int rank = 0; rank < kRanks; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    json row;
    ASSERT_TRUE(wait_until(
        [&] {
          row = rank_row(daemon, "frozen", rank);
          return row.is_object() && row.value("state", "") == "finished";
        },
        15s))
        << daemon.log();
    const auto report = load_agent_report(agents[static_cast<std::size_t>(rank)]->report_path());
    ASSERT_TRUE(report.has_value());
    const AgentStats& stats = report->stats;
    // The schedule's step is 100 ms (longer on a loaded machine); a blocked
    // send would add the 3 s freeze.
    const double longest = longest_step_seconds(*report);
    std::printf("rank %d: longest step %.3f s; sent %llu events, dropped %llu, %llu failed sends\n",
                rank, longest, static_cast<unsigned long long>(stats.events_sent),
                static_cast<unsigned long long>(stats.events_dropped),
                static_cast<unsigned long long>(stats.send_failures));
    EXPECT_LT(longest, 1.5);
    // The connection stayed up: nothing was lost on the wire. Everything
    // sent arrived, everything not sent is the agent's counted drop, and
    // the only sequence gaps are the sends that failed.
    EXPECT_EQ(stats.events_recorded, stats.events_sent + stats.events_lost_in_send);
    EXPECT_EQ(row.value("events_received", std::uint64_t{0}), stats.events_sent);
    EXPECT_EQ(row.value("agent_dropped", std::uint64_t{0}), stats.events_dropped);
    EXPECT_EQ(row.value("lost_batches", std::uint64_t{0}), stats.send_failures);
  }
  // Caught up: the last batches' lag is back to the ordinary.
  ASSERT_TRUE(wait_until(
      [&] {
        const json status = get_json(daemon, "/api/v1/status");
        return status.is_object() && status["ingest"].value("ingest_lag_seconds", 99.0) < 0.5;
      },
      10s));
}

}  // namespace
}  // namespace stallwatch::test
