// SPDX-License-Identifier: MIT
// Jobs come and go: a finished job is dropped `engine.forget_after` after its
// last rank finished, from the API and /metrics alike, and counted in the
// status; a job still running stays.

#include <gtest/gtest.h>

#include <memory>

#include "integration_fixture.h"

namespace stallwatch::test {
namespace {

constexpr const char* kToml = R"([engine]
windows = ["2s", "10s"]
verdict_window = "2s"
silent_after = "3s"
forget_after = "2s"
)";

bool mentions(const std::string& text, const std::string& job) {
  return text.find(job) != std::string::npos;
}

TEST(RetentionTest, FinishedJobIsForgottenAfterForgetAfterAndCounted) {
  DaemonOptions options;
  options.config_toml = kToml;
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ScriptedAgent short_job(AgentRun{"starved", 2, "churn-short", 0, daemon.tcp_endpoint()},
                          daemon.dir());
  ScriptedAgent long_job(AgentRun{"starved", 10, "churn-long", 0, daemon.tcp_endpoint()},
                         daemon.dir());
  ASSERT_TRUE(short_job.start());
  ASSERT_TRUE(long_job.start());
  ASSERT_EQ(short_job.process().wait(20s), 0) << short_job.output();
  ASSERT_TRUE(wait_until(
      [&] {
        const json row = rank_row(daemon, "churn-short", 0);
        return row.is_object() && row.value("state", "") == "finished";
      },
      10s, 20ms))
      << daemon.log();
  EXPECT_TRUE(mentions(daemon.get("/metrics").body, "churn-short"));

  ASSERT_TRUE(wait_until([&] { return !mentions(daemon.get("/api/v1/jobs").body, "churn-short"); },
                         10s, 50ms))
      << daemon.get("/api/v1/jobs").body;
  EXPECT_EQ(daemon.get("/api/v1/jobs/churn-short").status, 404);
  EXPECT_FALSE(mentions(daemon.get("/metrics").body, "churn-short"));
  EXPECT_TRUE(mentions(daemon.get("/api/v1/jobs").body, "churn-long"));
  EXPECT_TRUE(mentions(daemon.get("/metrics").body, "churn-long"));
  const json engine = get_json(daemon, "/api/v1/status")["engine"];
  EXPECT_EQ(engine.value("forgotten_jobs", 0), 1) << engine.dump();
  EXPECT_EQ(engine.value("forgotten_ranks", 0), 1) << engine.dump();
  EXPECT_EQ(engine.value("ranks", 0), 1) << engine.dump();
  ASSERT_EQ(long_job.process().wait(30s), 0) << long_job.output();
}

}  // namespace
}  // namespace stallwatch::test
