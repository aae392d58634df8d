// SPDX-License-Identifier: MIT
#pragma once

// Shared pieces of the integration tests: a daemon configuration with short
// windows, JSON access to the API, scripted agents (integration_agent child
// processes) and the comparison of a rank's metrics with what its agent
// recorded.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent_report.h"
#include "child_process.h"
#include "daemon_process.h"
#include "prometheus_samples.h"

namespace stallwatch::test {

using nlohmann::json;
using namespace std::chrono_literals;

// Windows "2s" and "5s" on a 100 ms grid (and "60s", which the default alert
// rules watch), lateness 300 ms, silent after 2 s, a tick every 100 ms: a few
// seconds of schedule fill the short windows.
DaemonOptions short_window_options();

// Windows "2s" and "300s" on a 100 ms grid with a history just over 300 s,
// lateness 300 ms, silent after 5 s, a tick every 100 ms: the configuration of
// the journal, restart and chaos tests, whose 300 s window holds a whole run.
inline constexpr const char* kJournalWindowsToml = R"([engine]
windows = ["2s", "300s"]
verdict_window = "2s"
resolution = "100ms"
lateness = "300ms"
silent_after = "5s"
history = "310s"
tick = "100ms"
)";

// CLOCK_MONOTONIC in nanoseconds.
std::int64_t monotonic_ns();

// The JSON body of a 200 answer; null otherwise.
json get_json(const DaemonProcess& daemon, const std::string& target);
// The rank's row from /api/v1/jobs/{job}; null while the rank is unknown.
json rank_row(const DaemonProcess& daemon, const std::string& job, int rank);
// A counter of a rank row; 0 while the row is null or lacks it.
std::uint64_t row_counter(const json& row, const char* name);

struct AgentRun {
  std::string schedule = "starved";  // see integration_agent.cc
  double seconds = 5;
  std::string job;
  int rank = 0;
  std::string endpoint;  // STALLWATCH_COLLECTOR
  // More environment: CURVE keys, the test-only host name and clock shift.
  std::vector<std::pair<std::string, std::string>> env = {};
  long burst = 0;  // counter samples recorded as fast as possible before exit
};

// A running integration_agent; its report and output live in `dir`.
class ScriptedAgent {
 public:
  ScriptedAgent(const AgentRun& run, const std::string& dir);
  bool start() { return process_.start(); }
  ChildProcess& process() { return process_; }
  const std::string& report_path() const { return report_path_; }
  std::string output() const { return process_.output(); }

 private:
  std::string report_path_;
  ChildProcess process_;
};

// The rank's Metrics object of `window` equals, within the recorded
// brackets, what the agent's report implies for the same [start_ns, end_ns).
void expect_window_matches_report(const json& metrics, const AgentReport& report);
// expect_window_matches_report for every window of the rank row, plus its
// loss counters against the agent's own statistics.
void expect_rank_matches_report(const json& row, const AgentReport& report);

// GET /metrics, checked by promtool and parsed. A failure is reported to the
// running test and gives no samples.
std::vector<PromSample> scrape_metrics(const DaemonProcess& daemon);

}  // namespace stallwatch::test
