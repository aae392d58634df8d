// SPDX-License-Identifier: MIT
// Several ranks of one job on a real stallwatchd: job aggregates over the
// ranks, and rank states as processes exit cleanly or die.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

json job_detail_when(const DaemonProcess& daemon, const std::string& job,
                     const std::function<bool(const json&)>& ready) {
  json detail;
  const bool ok = wait_until(
      [&] {
        detail = get_json(daemon, "/api/v1/jobs/" + job);
        return detail.is_object() && ready(detail);
      },
      15s, 50ms);
  return ok ? detail : json();
}

std::string state_of(const json& detail, int rank) {
  for (const json& row : detail["ranks"]) {
    if (row.value("rank", -1) == rank) return row.value("state", "");
  }
  return "";
}

TEST(JobTest, TwoRanksAggregateIntoMeanMaxAndTheStraggler) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent slow({"starved", 5, "pair", 0, daemon.tcp_endpoint()}, daemon.dir());
  ScriptedAgent fast({"overlapped", 5, "pair", 1, daemon.ipc_endpoint()}, daemon.dir());
  ASSERT_TRUE(slow.start());
  ASSERT_TRUE(fast.start());
  ASSERT_EQ(slow.process().wait(30s), 0) << slow.output();
  ASSERT_EQ(fast.process().wait(30s), 0) << fast.output();

  const json detail = job_detail_when(daemon, "pair", [](const json& d) {
    return d["ranks"].size() == 2 && state_of(d, 0) == "finished" && state_of(d, 1) == "finished";
  });
  ASSERT_TRUE(detail.is_object()) << daemon.log();
  const auto slow_report = load_agent_report(slow.report_path());
  const auto fast_report = load_agent_report(fast.report_path());
  ASSERT_TRUE(slow_report && fast_report);
  const json& rank0 = detail["ranks"][0];
  const json& rank1 = detail["ranks"][1];
  ASSERT_EQ(rank0["rank"], 0);
  ASSERT_EQ(rank1["rank"], 1);
  expect_rank_matches_report(rank0, *slow_report);
  expect_rank_matches_report(rank1, *fast_report);

  for (const char* window : {"2s", "5s", "total"}) {
    SCOPED_TRACE(window);
    const json& summary = detail["summary"][window];
    const json& a = rank0["windows"][window];
    const json& b = rank1["windows"][window];
    for (const char* metric :
         {"data_stall_ratio", "device_idle_ratio", "compute_seconds", "unoverlapped_app_io_seconds",
          "steps_per_second", "step_seconds_p50"}) {
      const double x = a[metric].get<double>();
      const double y = b[metric].get<double>();
      EXPECT_NEAR(summary["mean"][metric].get<double>(), (x + y) / 2, 1e-9) << metric;
      EXPECT_NEAR(summary["max"][metric].get<double>(), std::max(x, y), 1e-9) << metric;
    }
    // Rank 0 waits for data 60 % of a 100 ms step; rank 1 steps every 60 ms.
    EXPECT_EQ(summary["straggler_rank"], 0);
    EXPECT_EQ(summary["max"]["verdict"], "data-starved");
  }
  EXPECT_GT(rank0["windows"]["total"]["step_seconds_p50"].get<double>(),
            rank1["windows"]["total"]["step_seconds_p50"].get<double>() * 1.3);
  // The mean stall (about (0.6 + 0.03) / 2) is still above the 0.15 threshold.
  EXPECT_EQ(detail["verdict"], "data-starved");
  EXPECT_EQ(detail["state"], "finished");
  EXPECT_EQ(detail["counters"]["events_received"].get<std::uint64_t>(),
            slow_report->stats.events_sent + fast_report->stats.events_sent);

  const json jobs = get_json(daemon, "/api/v1/jobs");
  ASSERT_TRUE(jobs.is_object());
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["job"], "pair");
  EXPECT_EQ(jobs["jobs"][0]["ranks"], 2);
  EXPECT_EQ(jobs["jobs"][0]["device_source"], "compute-proxy");
}

TEST(JobTest, KilledRankTurnsSilentAndCleanlyExitedRankFinished) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent doomed({"starved", 60, "mixed-fate", 0, daemon.ipc_endpoint()}, daemon.dir());
  ScriptedAgent clean({"starved", 3, "mixed-fate", 1, daemon.ipc_endpoint()}, daemon.dir());
  ASSERT_TRUE(doomed.start());
  ASSERT_TRUE(clean.start());
  ASSERT_TRUE(job_detail_when(daemon, "mixed-fate",
                              [](const json& d) {
                                return state_of(d, 0) == "active" && state_of(d, 1) == "active";
                              })
                  .is_object())
      << daemon.log();

  doomed.process().signal(SIGKILL);
  EXPECT_EQ(doomed.process().wait(10s), 128 + SIGKILL);
  EXPECT_EQ(clean.process().wait(30s), 0) << clean.output();

  // silent_after is 2 s: the killed rank goes quiet, never "finished".
  const json detail = job_detail_when(daemon, "mixed-fate", [](const json& d) {
    return state_of(d, 0) == "silent" && state_of(d, 1) == "finished";
  });
  ASSERT_TRUE(detail.is_object()) << get_json(daemon, "/api/v1/jobs/mixed-fate").dump();
  EXPECT_FALSE(detail["ranks"][0]["processes"][0]["finished"].get<bool>());
  EXPECT_TRUE(detail["ranks"][1]["processes"][0]["finished"].get<bool>());
  EXPECT_NE(detail["state"], "active");

  // Still silent a few ticks later: no data means no flapping back to active.
  std::this_thread::sleep_for(500ms);
  const json later = rank_row(daemon, "mixed-fate", 0);
  ASSERT_TRUE(later.is_object());
  EXPECT_EQ(later["state"], "silent");
}

}  // namespace
}  // namespace stallwatch::test
