// SPDX-License-Identifier: MIT
#include "status_text.h"

#include <gtest/gtest.h>

#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

DaemonStatus daemon_status() {
  DaemonStatus s;
  s.version = "0.1.0";
  s.uptime_seconds = 185;
  s.tick = 370;
  s.tick_ms = 500;
  s.endpoints = {"tcp://127.0.0.1:5557", "ipc:///tmp/sw/ingest.sock"};
  s.frames_received = 1234;
  s.bytes_received = 3 << 20;
  s.events_received = 40000;
  s.invalid_frames = {{"too_large", 0}, {"malformed", 3}, {"semantic", 1}};
  s.ingest_lag_seconds = 0.01;
  s.ranks = 4;
  s.sources = 5;
  s.approx_memory_bytes = 1 << 20;
  s.counters.agent_dropped = 7;
  s.windows = {"10s", "60s", "300s", "total"};
  s.verdict_window = "60s";
  return s;
}

TEST(StatusTextTest, SummarizesTheDaemonAndOneLinePerJob) {
  const TopModel model = test::two_job_model();
  JobsPage page;
  page.verdict_window = "60s";
  page.jobs = model.jobs;
  const std::string text = format_status("http://127.0.0.1:8787", daemon_status(), page);
  EXPECT_EQ(
      text,
      "stallwatchd 0.1.0 at http://127.0.0.1:8787\n"
      "uptime:         3m 05s · tick 370 every 500 ms\n"
      "ingest:         tcp://127.0.0.1:5557, ipc:///tmp/sw/ingest.sock\n"
      "received:       1,234 frames · 3.0 MiB · 40,000 events · lag 10.0 ms\n"
      "invalid frames: 4 (malformed 3, semantic 1)\n"
      "engine:         4 ranks · 5 sources · 0 evicted ranks · 0 rejected sources · ~1.0 MiB\n"
      "loss:           agent dropped 7 · lost batches 0 · late events 0 · unpaired 0\n"
      "windows:        10 s, 60 s, 300 s, total (verdicts over 60 s)\n"
      "jobs:           2\n"
      "  alpha     active    3 ranks    data-starved     device idle 40.0% · data stall 22.0% · "
      "overlap 50.0% · "
      "1.50 steps/s\n"
      "  beta      finished  1 rank     io-bound         device idle 35.0% · data stall 0.0% · "
      "overlap 20.0% · "
      "2.00 steps/s\n");
}

TEST(StatusTextTest, NoJobsAndNoInvalidFrames) {
  DaemonStatus s = daemon_status();
  s.invalid_frames = {{"malformed", 0}};
  const std::string text = format_status("http://h:1", s, JobsPage{});
  EXPECT_NE(text.find("invalid frames: none\n"), std::string::npos);
  EXPECT_NE(text.find("jobs:           none yet\n"), std::string::npos);
}

TEST(StatusTextTest, CurveEndpointsRefusalsAndClockWarnings) {
  DaemonStatus s = daemon_status();
  s.endpoints.push_back("tcp://0.0.0.0:5558");
  s.curve_endpoints = {"tcp://0.0.0.0:5558"};
  s.rejected_connections = {{"plaintext_client", 0}, {"wrong_server_key", 12}, {"not_allowed", 3}};
  s.clock_warnings = {{"node-7", -90.0}};
  const std::string text = format_status("http://h:1", s, JobsPage{});
  EXPECT_NE(text.find("ingest:         tcp://127.0.0.1:5557, ipc:///tmp/sw/ingest.sock, "
                      "tcp://0.0.0.0:5558 (CURVE)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("refused:        15 (wrong_server_key 12, not_allowed 3)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("clock warning:  node-7 1m 30s behind"), std::string::npos) << text;

  s.rejected_connections = {{"not_allowed", 0}};
  EXPECT_NE(format_status("http://h:1", s, JobsPage{}).find("refused:        none\n"),
            std::string::npos);
}

}  // namespace
}  // namespace stallwatch::tui
