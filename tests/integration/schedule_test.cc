// SPDX-License-Identifier: MIT
// A real stallwatchd driven by the real agent library replaying known
// training-loop schedules: the API shows each schedule's stall while it runs
// and, once the agent has exited, exactly what the agent recorded.

#include <gtest/gtest.h>

#include "integration_fixture.h"
#include "prometheus_samples.h"
#include "ws_client.h"

namespace stallwatch::test {
namespace {

// Waits until the rank has a full 2 s window of live data; null on timeout.
json wait_for_live_row(const DaemonProcess& daemon, const std::string& job) {
  json row;
  const bool live = wait_until(
      [&] {
        row = rank_row(daemon, job, 0);
        return row.is_object() && row.value("state", "") == "active" &&
               row["windows"]["2s"].value("wall_seconds", 0.0) >= 2.0;
      },
      20s, 50ms);
  return live ? row : json();
}

json wait_for_state(const DaemonProcess& daemon, const std::string& job, int rank,
                    const std::string& state) {
  json row;
  const bool reached = wait_until(
      [&] {
        row = rank_row(daemon, job, rank);
        return row.is_object() && row.value("state", "") == state;
      },
      15s, 50ms);
  return reached ? row : json();
}

double field(const json& metrics, const char* name) {
  return metrics.at(name).is_number() ? metrics.at(name).get<double>() : -1.0;
}

void expect_metrics_endpoint_shows(const DaemonProcess& daemon, const std::string& job) {
  const std::vector<PromSample> samples = scrape_metrics(daemon);
  ASSERT_FALSE(samples.empty());
  const std::map<std::string, std::string> rank{{"job_id", job}, {"rank", "0"}};
  // The rank's counters over its finalized time: the schedule's stall share.
  const auto wall = find_sample(samples, "stallwatch_wall_seconds_total", rank);
  const auto stall = find_sample(samples, "stallwatch_data_stall_seconds_total", rank);
  const auto busy = find_sample(samples, "stallwatch_device_busy_seconds_total", rank);
  ASSERT_TRUE(wall && stall && busy);
  ASSERT_GT(*wall, 1.0);
  EXPECT_NEAR(*stall / *wall, 0.6, 0.15);
  EXPECT_NEAR(1 - *busy / *wall, 0.6, 0.15);
  const auto steps = find_sample(samples, "stallwatch_steps_total", rank);
  ASSERT_TRUE(steps.has_value());
  EXPECT_GT(*steps, 0);
  // The job's aggregate over the verdict window (2s), as the API shows it.
  const std::map<std::string, std::string> mean{
      {"job_id", job}, {"window", "2s"}, {"aggregate", "mean"}};
  const auto job_stall = find_sample(samples, "stallwatch_job_data_stall_ratio", mean);
  ASSERT_TRUE(job_stall.has_value());
  EXPECT_NEAR(*job_stall, 0.6, 0.15);
  auto info = rank;
  info["state"] = "active";
  EXPECT_EQ(find_sample(samples, "stallwatch_rank_info", info), 1.0);
}

void expect_stream_delivers_ticks(const DaemonProcess& daemon, const std::string& job) {
  WsClient ws(daemon.http_port());
  ASSERT_TRUE(ws.ok());
  const auto hello = ws.read();
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(json::parse(*hello).value("type", ""), "hello");
  ASSERT_TRUE(ws.send_text(R"({"type": "subscribe", "job": ")" + job + "\"}"));
  std::int64_t last_tick = -1;
  int ticks = 0;
  bool saw_job = false;
  for (int i = 0; i < 50 && !(saw_job && ticks >= 3); ++i) {
    const auto text = ws.read();
    ASSERT_TRUE(text.has_value()) << "stream ended after " << ticks << " ticks";
    const json message = json::parse(*text);
    if (message.value("type", "") != "tick") continue;
    const auto tick = message.value("tick", std::int64_t{-1});
    EXPECT_GT(tick, last_tick);
    last_tick = tick;
    ++ticks;
    const json& detail = message["job"];
    if (detail.is_object() && detail.value("job", "") == job && !detail["ranks"].empty()) {
      saw_job = detail["ranks"][0].value("state", "") == "active";
    }
  }
  EXPECT_GE(ticks, 3);
  EXPECT_TRUE(saw_job) << "no tick carried the subscribed job with its active rank";
}

void expect_timeline_shows_the_loop(const DaemonProcess& daemon, const std::string& job) {
  const json timeline = get_json(daemon, "/api/v1/jobs/" + job + "/ranks/0/timeline?seconds=2");
  ASSERT_TRUE(timeline.is_object());
  int fetches = 0;
  int computes = 0;
  for (const json& region : timeline["regions"]) {
    fetches += region.value("class", "") == "fetch" && region.value("name", "") == "fetch.iter";
    computes += region.value("class", "") == "compute";
  }
  int steps = 0;
  for (const json& mark : timeline["marks"])
    steps += mark.value("name", "") == "step";
  // 2 s of 100 ms iterations: about 20 of each (3 compute regions per iteration).
  EXPECT_GE(fetches, 10);
  EXPECT_GE(computes, 30);
  EXPECT_GE(steps, 10);
}

TEST(ScheduleTest, DataStarvedLoopShowsItsStallLiveAndExactlyAtTheEnd) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent({"starved", 6, "starved", 0, daemon.ipc_endpoint()}, daemon.dir());
  ASSERT_TRUE(agent.start());

  const json live = wait_for_live_row(daemon, "starved");
  ASSERT_TRUE(live.is_object()) << daemon.log() << agent.output();
  EXPECT_EQ(live["verdict"], "data-starved");
  EXPECT_EQ(live["device_source"], "compute-proxy");
  EXPECT_NEAR(field(live["windows"]["2s"], "data_stall_ratio"), 0.6, 0.15);
  EXPECT_NEAR(field(live["windows"]["2s"], "device_idle_ratio"), 0.6, 0.15);
  expect_metrics_endpoint_shows(daemon, "starved");
  expect_stream_delivers_ticks(daemon, "starved");
  expect_timeline_shows_the_loop(daemon, "starved");

  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();
  const json row = wait_for_state(daemon, "starved", 0, "finished");
  ASSERT_TRUE(row.is_object()) << daemon.log();
  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value()) << agent.output();
  expect_rank_matches_report(row, *report);

  // The schedule as designed: 60 % waiting for data, 40 % compute, 10 steps/s.
  const json& total = row["windows"]["total"];
  const double wall = field(total, "wall_seconds");
  EXPECT_NEAR(field(total, "data_stall_ratio"), 0.6, 0.05);
  EXPECT_NEAR(field(total, "device_idle_ratio"), 0.6, 0.05);
  EXPECT_NEAR(field(total, "unoverlapped_app_io_seconds") / wall, 0.6, 0.05);
  EXPECT_GT(field(total, "app_io_seconds"),
            field(total, "unoverlapped_app_io_seconds") + 0.1 * wall)
      << "the loader thread's reads overlap compute";
  // Sleeps only ever overshoot: a loaded machine stretches the 100 ms step.
  EXPECT_GE(field(total, "steps_per_second"), 8.0);
  EXPECT_LE(field(total, "steps_per_second"), 10.1);
  EXPECT_GE(field(total, "step_seconds_p50"), 0.099);
  EXPECT_LE(field(total, "step_seconds_p50"), 0.115);
  EXPECT_EQ(total.value("verdict", ""), "data-starved");
  EXPECT_EQ(row["verdict"], "data-starved");
}

TEST(ScheduleTest, WellOverlappedLoopShowsNoStallLiveAndExactlyAtTheEnd) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent agent({"overlapped", 6, "overlapped", 0, daemon.tcp_endpoint()}, daemon.dir());
  ASSERT_TRUE(agent.start());

  const json live = wait_for_live_row(daemon, "overlapped");
  ASSERT_TRUE(live.is_object()) << daemon.log() << agent.output();
  EXPECT_EQ(live["verdict"], "well-overlapped");
  EXPECT_LE(field(live["windows"]["2s"], "data_stall_ratio"), 0.12);

  ASSERT_EQ(agent.process().wait(30s), 0) << agent.output();
  const json row = wait_for_state(daemon, "overlapped", 0, "finished");
  ASSERT_TRUE(row.is_object()) << daemon.log();
  const auto report = load_agent_report(agent.report_path());
  ASSERT_TRUE(report.has_value()) << agent.output();
  expect_rank_matches_report(row, *report);

  // 2 ms of fetch per ~60 ms iteration (about 3 %, more when sleeps
  // overshoot on a loaded machine); the loader's reads hide under compute.
  const json& total = row["windows"]["total"];
  const double wall = field(total, "wall_seconds");
  EXPECT_LE(field(total, "data_stall_ratio"), 0.10);
  EXPECT_GT(field(total, "data_stall_ratio"), 0.0);
  EXPECT_LE(field(total, "device_idle_ratio"), 0.15);
  EXPECT_LE(field(total, "unoverlapped_app_io_seconds") / wall, 0.12);
  EXPECT_GE(field(total, "app_io_seconds") / wall, 0.3);
  EXPECT_GE(field(total, "steps_per_second"), 12.0);
  EXPECT_LE(field(total, "steps_per_second"), 16.8);
  EXPECT_EQ(total.value("verdict", ""), "well-overlapped");
  EXPECT_EQ(row["verdict"], "well-overlapped");
}

}  // namespace
}  // namespace stallwatch::test
