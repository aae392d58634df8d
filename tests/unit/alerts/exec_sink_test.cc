// SPDX-License-Identifier: MIT
#include "exec_sink.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace stallwatch::collector {
namespace {

namespace fs = std::filesystem;

class ExecSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sw-exec-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  ExecSinkConfig config(std::vector<std::string> command,
                        std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    ExecSinkConfig c;
    c.command = std::move(command);
    c.delivery.timeout_ns = timeout.count() * 1'000'000;
    return c;
  }

  fs::path dir_;
};

Alert sample() {
  Alert a;
  a.id = "DataStarved/demo/2";
  a.name = "DataStarved";
  a.phase = AlertPhase::kFiring;
  a.severity = "warning";
  a.job = "demo";
  a.rank = 2;
  a.metric = "data_stall_ratio";
  a.window = "60s";
  a.value = 0.5;
  a.threshold = 0.3;
  a.verdict = "data-starved";
  a.labels = {{"team", "ml"}};
  a.annotations = {{"summary", "starved; rm -rf / $(reboot)"}, {"runbook-url", "http://wiki/x"}};
  a.active_since_ns = 1'700'000'000'000'000'000;
  return a;
}

TEST_F(ExecSinkTest, PassesTheAlertInTheEnvironment) {
  const fs::path out = dir_ / "env.txt";
  ExecSink sink(
      config({"/bin/sh", "-c", "env | grep ^STALLWATCH_ALERT_ | sort > \"$0\"", out.string()}),
      "http://h:1");
  const Alert alerts[] = {sample()};
  ASSERT_EQ(sink.deliver(alerts), "");
  const std::string env = read(out);
  for (const char* line :
       {"STALLWATCH_ALERT_NAME=DataStarved\n", "STALLWATCH_ALERT_STATUS=firing\n",
        "STALLWATCH_ALERT_JOB=demo\n", "STALLWATCH_ALERT_RANK=2\n", "STALLWATCH_ALERT_VALUE=0.5\n",
        "STALLWATCH_ALERT_THRESHOLD=0.3\n", "STALLWATCH_ALERT_VERDICT=data-starved\n",
        "STALLWATCH_ALERT_WINDOW=60s\n", "STALLWATCH_ALERT_ENDS_AT=\n",
        "STALLWATCH_ALERT_LABEL_TEAM=ml\n",
        "STALLWATCH_ALERT_ANNOTATION_RUNBOOK_URL=http://wiki/x\n",
        "STALLWATCH_ALERT_STARTS_AT=2023-11-14T22:13:20.000Z\n",
        "STALLWATCH_ALERT_URL=http://h:1/#/jobs/demo?rank=2&window=60s\n",
        "STALLWATCH_ALERT_SUMMARY=starved; rm -rf / $(reboot)\n"}) {
    EXPECT_NE(env.find(line), std::string::npos) << line << " missing from\n" << env;
  }
}

TEST_F(ExecSinkTest, ArgumentsAreNeverInterpretedByAShell) {
  // touch gets the argument verbatim and creates a file with this odd name;
  // a shell would have run the embedded commands and created `injected`.
  const std::string odd = "x; touch injected $(touch injected) `touch injected`";
  ExecSink sink(config({"/usr/bin/touch", (dir_ / odd).string()}), "http://h");
  const Alert alerts[] = {sample()};
  ASSERT_EQ(sink.deliver(alerts), "");
  EXPECT_TRUE(fs::exists(dir_ / odd));
  EXPECT_FALSE(fs::exists("injected"));
  EXPECT_FALSE(fs::exists(dir_ / "injected"));
}

TEST_F(ExecSinkTest, NonZeroExitAndMissingProgramAreFailures) {
  const Alert alerts[] = {sample()};
  ExecSink failing(config({"/bin/sh", "-c", "exit 3"}), "http://h");
  EXPECT_NE(failing.deliver(alerts).find("exited with status 3"), std::string::npos);
  ExecSink missing(config({"/nonexistent/stallwatch-pager"}), "http://h");
  EXPECT_NE(missing.deliver(alerts).find("cannot run '/nonexistent/stallwatch-pager'"),
            std::string::npos);
}

TEST_F(ExecSinkTest, TimeoutKillsTheCommandAndItsChildren) {
  const fs::path pid_file = dir_ / "child.pid";
  ExecSink sink(config({"/bin/sh", "-c", "sleep 60 & echo $! > \"$0\"; wait", pid_file.string()},
                       std::chrono::milliseconds(300)),
                "http://h");
  const Alert alerts[] = {sample()};
  const auto t0 = std::chrono::steady_clock::now();
  const std::string err = sink.deliver(alerts);
  EXPECT_NE(err.find("timed out"), std::string::npos) << err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  const pid_t child = std::stoi(read(pid_file));
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(child, 0) != 0 ||
           read("/proc/" + std::to_string(child) + "/stat").find(" Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the grandchild sleep survived";
}

TEST_F(ExecSinkTest, RunsOncePerAlertInTheBatch) {
  const fs::path out = dir_ / "runs.txt";
  ExecSink sink(
      config({"/bin/sh", "-c", "echo \"$STALLWATCH_ALERT_ID $STALLWATCH_ALERT_STATUS\" >> \"$0\"",
              out.string()}),
      "http://h");
  Alert resolved = sample();
  resolved.phase = AlertPhase::kResolved;
  resolved.resolved_at_ns = resolved.active_since_ns + 1'000'000'000;
  const Alert alerts[] = {sample(), resolved};
  ASSERT_EQ(sink.deliver(alerts), "");
  EXPECT_EQ(read(out), "DataStarved/demo/2 firing\nDataStarved/demo/2 resolved\n");
}

TEST_F(ExecSinkTest, RetryRunsOnlyTheCommandsThatFailed) {
  // The command for the resolved alert fails until the flag file exists: the
  // retry must not page the firing alert a second time.
  const fs::path out = dir_ / "runs.txt";
  const fs::path flag = dir_ / "fixed";
  ExecSink sink(config({"/bin/sh", "-c",
                        "echo \"$STALLWATCH_ALERT_STATUS\" >> \"$0\"; "
                        "[ \"$STALLWATCH_ALERT_STATUS\" = firing ] || [ -e \"$1\" ]",
                        out.string(), flag.string()}),
                "http://h");
  Alert resolved = sample();
  resolved.phase = AlertPhase::kResolved;
  resolved.resolved_at_ns = resolved.active_since_ns + 1'000'000'000;
  const Alert alerts[] = {sample(), resolved};
  EXPECT_NE(sink.deliver(alerts), "");
  EXPECT_NE(sink.deliver(alerts), "");
  std::ofstream(flag.string()) << "1";
  ASSERT_EQ(sink.deliver(alerts), "");
  EXPECT_EQ(read(out), "firing\nresolved\nresolved\nresolved\n");
  // A new batch (even with the same alerts) runs every command again.
  ASSERT_EQ(sink.deliver(alerts), "");
  EXPECT_EQ(read(out), "firing\nresolved\nresolved\nresolved\nfiring\nresolved\n");
}

}  // namespace
}  // namespace stallwatch::collector
