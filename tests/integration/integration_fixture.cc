// SPDX-License-Identifier: MIT
#include "integration_fixture.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cmath>

namespace stallwatch::test {
namespace {

constexpr const char* kShortWindowsToml = R"([engine]
windows = ["2s", "5s", "60s"]
verdict_window = "2s"
resolution = "100ms"
lateness = "300ms"
silent_after = "2s"
history = "120s"
tick = "100ms"
)";

// A field of a Metrics object as a double; NaN for null or absent.
double number(const json& metrics, const char* field) {
  const auto it = metrics.find(field);
  if (it == metrics.end() || !it->is_number()) return std::nan("");
  return it->get<double>();
}

void expect_near(const json& metrics, const char* field, const Expected& expected) {
  EXPECT_NEAR(number(metrics, field), expected.value, expected.tolerance)
      << field << " over [" << metrics.value("start_ns", 0LL) << ", "
      << metrics.value("end_ns", 0LL) << ") of window " << metrics.value("window", "?");
}

}  // namespace

DaemonOptions short_window_options() {
  DaemonOptions options;
  options.config_toml = kShortWindowsToml;
  return options;
}

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::uint64_t row_counter(const json& row, const char* name) {
  return row.is_object() ? row.value(name, std::uint64_t{0}) : 0;
}

json get_json(const DaemonProcess& daemon, const std::string& target) {
  const HttpResponse response = daemon.get(target);
  if (response.status != 200) return nullptr;
  return json::parse(response.body, nullptr, false);
}

json rank_row(const DaemonProcess& daemon, const std::string& job, int rank) {
  const json detail = get_json(daemon, "/api/v1/jobs/" + job);
  if (!detail.is_object() || !detail.contains("ranks")) return nullptr;
  for (const json& row : detail["ranks"]) {
    if (row.value("rank", -1) == rank) return row;
  }
  return nullptr;
}

namespace {

std::vector<std::pair<std::string, std::string>> agent_env(const AgentRun& run) {
  // CLOCK_MONOTONIC: the agent's stamps and the brackets around them come
  // from one clock with no recalibration in between.
  std::vector<std::pair<std::string, std::string>> env = {{"STALLWATCH_COLLECTOR", run.endpoint},
                                                          {"STALLWATCH_CLOCK", "monotonic"}};
  env.insert(env.end(), run.env.begin(), run.env.end());
  return env;
}

}  // namespace

ScriptedAgent::ScriptedAgent(const AgentRun& run, const std::string& dir)
    : report_path_(dir + "/" + run.job + "-" + std::to_string(run.rank) + ".report"),
      process_(ChildOptions{
          {STALLWATCH_INTEGRATION_AGENT, "--schedule", run.schedule, "--seconds",
           std::to_string(run.seconds), "--job", run.job, "--rank", std::to_string(run.rank),
           "--report", report_path_, "--burst", std::to_string(run.burst)},
          agent_env(run),
          dir + "/" + run.job + "-" + std::to_string(run.rank) + ".log"}) {}

void expect_window_matches_report(const json& metrics, const AgentReport& report) {
  const auto start = metrics.at("start_ns").get<std::int64_t>();
  const auto end = metrics.at("end_ns").get<std::int64_t>();
  ASSERT_LT(start, end) << metrics.dump();
  const ExpectedWindow w = expected_window(report, start, end);
  SCOPED_TRACE("window " + metrics.value("window", std::string("?")));

  EXPECT_DOUBLE_EQ(number(metrics, "wall_seconds"), w.wall_seconds);
  expect_near(metrics, "compute_seconds", w.compute_seconds);
  expect_near(metrics, "fetch_seconds", w.fetch_seconds);
  expect_near(metrics, "app_io_seconds", w.app_io_seconds);
  expect_near(metrics, "unoverlapped_app_io_seconds", w.unoverlapped_app_io_seconds);
  // compute-proxy: COMPUTE stands in for DEVICE_BUSY.
  expect_near(metrics, "device_busy_seconds", w.compute_seconds);
  expect_near(metrics, "data_stall_seconds", w.data_stall_seconds);
  expect_near(metrics, "device_idle_ratio", w.device_idle_ratio);
  expect_near(metrics, "data_stall_ratio", w.data_stall_ratio);

  const auto steps = metrics.value("steps", std::uint64_t{0});
  EXPECT_GE(steps, w.steps_min);
  EXPECT_LE(steps, w.steps_max);
  EXPECT_NEAR(number(metrics, "steps_per_second"), static_cast<double>(steps) / w.wall_seconds,
              1e-9);
  EXPECT_NEAR(
      number(metrics, "samples_per_second"),
      static_cast<double>(steps * static_cast<std::uint64_t>(report.batch_size)) / w.wall_seconds,
      1e-6);
  if (w.step_seconds.size() >= 5) {
    const auto& d = w.step_seconds;
    const double lo = d[static_cast<std::size_t>(0.3 * static_cast<double>(d.size() - 1))];
    const double hi =
        d[static_cast<std::size_t>(std::ceil(0.7 * static_cast<double>(d.size() - 1)))];
    EXPECT_GE(number(metrics, "step_seconds_p50"), lo - 1e-6);
    EXPECT_LE(number(metrics, "step_seconds_p50"), hi + 1e-6);
  }
}

void expect_rank_matches_report(const json& row, const AgentReport& report) {
  ASSERT_TRUE(row.is_object());
  EXPECT_EQ(row.value("device_source", ""), "compute-proxy");
  for (const auto& [name, metrics] : row.at("windows").items()) {
    expect_window_matches_report(metrics, report);
  }
  EXPECT_EQ(row.value("events_received", std::uint64_t{0}), report.stats.events_sent);
  EXPECT_EQ(row.value("agent_dropped", std::uint64_t{1}), report.stats.events_dropped);
  EXPECT_EQ(row.value("lost_batches", std::uint64_t{1}), 0u);
  EXPECT_EQ(row.value("late_events", std::uint64_t{1}), 0u);
  EXPECT_EQ(row.value("unpaired_events", std::uint64_t{1}), 0u);
}

std::vector<PromSample> scrape_metrics(const DaemonProcess& daemon) {
  const HttpResponse response = daemon.get("/metrics");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(promtool_complaints(response.body, daemon.dir()), "");
  std::string bad_line;
  auto samples = parse_prometheus(response.body, &bad_line);
  EXPECT_TRUE(samples.has_value()) << "unparsable line: " << bad_line;
  return samples ? std::move(*samples) : std::vector<PromSample>{};
}

}  // namespace stallwatch::test
