// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon_process.h"
#include "demo_job.h"
#include "tui_cli.h"

namespace stallwatch::tui::test {
namespace {

using stallwatch::test::DaemonProcess;

class StatusCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(daemon_.start()) << daemon_.log();
    const SendResult sent = send_demo_jobs(daemon_.tcp_endpoint());
    ASSERT_TRUE(sent.ok) << sent.error;
    ASSERT_TRUE(wait_for_demo_state(daemon_.http_port())) << daemon_.log();
  }

  DaemonProcess daemon_;
};

TEST_F(StatusCommandTest, SummarizesTheDaemonAndEachJob) {
  const std::string url = url_of(daemon_.http_port());
  const ProcessResult r = run_cli({"status", "--url", url});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("stallwatchd 0.1.0 at " + url + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ingest:         " + daemon_.tcp_endpoint()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("received:       " + std::to_string(kDemoFrames) + " frames · "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" · " + std::to_string(kDemoEvents) + " events · "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("invalid frames: none\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("engine:         4 ranks · 5 sources · "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("jobs:           2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  tui-other  finished  1 rank     io-bound "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  tui-demo   finished  3 ranks    "), std::string::npos) << r.out;
}

TEST_F(StatusCommandTest, CountsInvalidFramesByReason) {
  ASSERT_TRUE(send_garbage_frame(daemon_.tcp_endpoint()).ok);
  std::string out;
  EXPECT_TRUE(stallwatch::test::wait_until(
      [&] {
        out = run_cli({"status", "--url", url_of(daemon_.http_port())}).out;
        return out.find("invalid frames: 1 (") != std::string::npos;
      },
      std::chrono::seconds(20), std::chrono::milliseconds(200)))
      << out;
}

TEST_F(StatusCommandTest, JsonIsBothBodiesInOneObject) {
  const ProcessResult r = run_cli({"status", "--json", "--url", url_of(daemon_.http_port())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  EXPECT_EQ(doc["status"]["version"], "0.1.0");
  EXPECT_EQ(doc["jobs"]["jobs"].size(), 2u);
}

TEST(StatusCommandErrorsTest, UnreachableCollectorExitsOneNamingTheUrl) {
  const std::string url = url_of(stallwatch::test::free_tcp_port());
  const ProcessResult r = run_cli({"status", "--url", url});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "stallwatch status: cannot reach the collector at " + url + ": connection refused\n");
  // The URL can come from the environment too.
  const ProcessResult env = run_cli({"status"}, {"STALLWATCH_URL=" + url});
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_NE(env.err.find(url), std::string::npos);
}

TEST(StatusCommandErrorsTest, UsageErrorsExitTwo) {
  const ProcessResult r = run_cli({"status", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("stallwatch status: The following argument was not expected: --frobnicate"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Run `stallwatch status --help`"), std::string::npos);
  const ProcessResult help = run_cli({"status", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Usage: stallwatch status [OPTIONS]"), std::string::npos);
}

}  // namespace
}  // namespace stallwatch::tui::test
