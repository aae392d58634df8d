// SPDX-License-Identifier: MIT
// systemd/stallwatchd.toml, the shipped example, in the real daemon: as
// shipped, and with every commented-out setting ("#key = ...") switched on.
// Also: a broken [alerts] section stops the daemon with file:line:key.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "daemon_process.h"
#include "external_tools.h"

namespace stallwatch::test {
namespace {

const std::string kExample = std::string(STALLWATCH_TEST_SOURCE_DIR) + "/systemd/stallwatchd.toml";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ExampleConfig, LoadsInTheRealDaemonAndServes) {
  DaemonProcess daemon({{"--config", kExample}, {}, std::chrono::milliseconds(15000)});
  ASSERT_TRUE(daemon.start()) << daemon.log();
  EXPECT_EQ(daemon.get("/api/v1/status").status, 200);
  EXPECT_EQ(daemon.get("/api/v1/alerts").body, "{\"alerts\":[]}");
  EXPECT_NE(daemon.log().find("alerts: 4 rule(s), notifying log"), std::string::npos)
      << daemon.log();
}

TEST(ExampleConfig, EveryCommentedOutSettingIsAcceptedToo) {
  TempDir dir;
  std::istringstream in(read_file(kExample));
  std::ostringstream out;
  std::size_t enabled = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 1 && line[0] == '#' && line[1] != ' ') {
      line.erase(0, 1);
      ++enabled;
    }
    out << line << "\n";
  }
  ASSERT_GE(enabled, 30u);
  const std::string path = dir.path() + "/all.toml";
  std::ofstream(path) << out.str();
  DaemonProcess daemon({{"--config", path, "--journal", dir.path() + "/journal"},
                        {},
                        std::chrono::milliseconds(15000)});
  ASSERT_TRUE(daemon.start()) << daemon.log() << "\n" << out.str();
  EXPECT_EQ(daemon.get("/api/v1/status").status, 200);
  EXPECT_NE(daemon.log().find(
                "alerts: 1 rule(s), notifying log, alertmanager, webhook, slack, pagerduty, exec"),
            std::string::npos)
      << daemon.log();
}

TEST(ExampleConfig, BrokenAlertRuleStopsTheDaemonNamingFileLineAndKey) {
  TempDir dir;
  const std::string path = dir.path() + "/bad.toml";
  std::ofstream(path)
      << "[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\n"
         "for = \"soon\"\n";
  std::string output;
  const int rc = run_command(std::string(stallwatchd_path()) + " --config " + path, output);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(output.find(path + ":6: alerts.rule[0].for: 'soon' is not a duration"),
            std::string::npos)
      << output;
}

}  // namespace
}  // namespace stallwatch::test
