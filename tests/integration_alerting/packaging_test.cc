// SPDX-License-Identifier: MIT
// The systemd/ packaging checked with the real tools, without starting a
// daemon: systemd-analyze verify on the unit, promtool on the alerting rules
// (syntax and behaviour), the Grafana dashboard against the metric names
// /metrics exports, and `cmake --install` into a temporary prefix.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "external_tools.h"
#include "serve/prometheus_text.h"
#include "test_env.h"

namespace stallwatch::test {
namespace {

namespace fs = std::filesystem;

const std::string kSource = STALLWATCH_TEST_SOURCE_DIR;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every metric family /metrics can export (HELP/TYPE lines are written even
// with no ranks).
std::set<std::string> exported_families() {
  const std::string text =
      collector::prometheus_text(collector::PublishedState{}, collector::ServeStats{});
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) out.insert(line.substr(7, line.find(' ', 7) - 7));
  }
  return out;
}

std::set<std::string> stallwatch_names(const std::string& expr) {
  static const std::regex kName("stallwatch_[a-z0-9_]+");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), kName);
       it != std::sregex_iterator(); ++it) {
    out.insert(it->str());
  }
  return out;
}

TEST(Packaging, SystemdAnalyzeVerifiesTheUnit) {
  std::string output;
  const int rc = run_command(std::string(STALLWATCH_TEST_SYSTEMD_ANALYZE) + " verify --man=no " +
                                 STALLWATCH_TEST_BUILD_TREE_UNIT,
                             output);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_EQ(output, "") << "warnings mean ignored settings";
}

TEST(Packaging, PromtoolAcceptsTheAlertingRules) {
  std::string output;
  const int rc = run_command(std::string(STALLWATCH_TEST_PROMTOOL) + " check rules " + kSource +
                                 "/systemd/stallwatch-rules.yml",
                             output);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_NE(output.find("SUCCESS: 5 rules found"), std::string::npos) << output;
}

TEST(Packaging, PrometheusRulesFireLikeTheDaemonsDefaults) {
  TempDir dir;
  fs::copy_file(kSource + "/systemd/stallwatch-rules.yml", dir.path() + "/stallwatch-rules.yml");
  fs::copy_file(kSource + "/tests/integration_alerting/stallwatch-rules.test.yml",
                dir.path() + "/stallwatch-rules.test.yml");
  std::string output;
  const int rc = run_command("cd " + dir.path() + " && " + STALLWATCH_TEST_PROMTOOL +
                                 " test rules stallwatch-rules.test.yml",
                             output);
  EXPECT_EQ(rc, 0) << output;
}

TEST(Packaging, RulesAndDashboardUseOnlyExportedMetrics) {
  const auto families = exported_families();
  ASSERT_GT(families.size(), 40u);
  for (const auto& name : stallwatch_names(read_file(kSource + "/systemd/stallwatch-rules.yml"))) {
    EXPECT_EQ(families.count(name), 1u) << "rules use " << name;
  }
  const auto dashboard =
      nlohmann::json::parse(read_file(kSource + "/systemd/stallwatch-grafana.json"));
  std::set<int> ids;
  std::size_t exprs = 0;
  for (const auto& panel : dashboard["panels"]) {
    EXPECT_TRUE(ids.insert(panel["id"].get<int>()).second) << "duplicate panel id " << panel["id"];
    EXPECT_TRUE(panel.contains("gridPos"));
    if (panel["type"] == "row") continue;
    EXPECT_FALSE(panel["targets"].empty()) << panel["title"];
    for (const auto& target : panel["targets"]) {
      const std::string expr = target["expr"];
      ++exprs;
      const auto names = stallwatch_names(expr);
      EXPECT_FALSE(names.empty()) << expr;
      for (const auto& name : names)
        EXPECT_EQ(families.count(name), 1u) << panel["title"] << ": " << name;
    }
  }
  EXPECT_GE(exprs, 15u);
  for (const auto& var : dashboard["templating"]["list"]) {
    if (var.contains("definition")) {
      for (const auto& name : stallwatch_names(var["definition"]))
        EXPECT_EQ(families.count(name), 1u) << name;
    }
  }
}

// `cmake --install --component C` of the daemon's components into a prefix.
void install_component(const std::string& prefix, const std::string& component) {
  std::string output;
  const int rc =
      run_command(std::string(STALLWATCH_TEST_CMAKE) + " --install " + STALLWATCH_TEST_BINARY_DIR +
                      " --prefix " + prefix + " --component " + component,
                  output);
  ASSERT_EQ(rc, 0) << output;
}

TEST(Packaging, CmakeInstallPutsDaemonUnitConfigAndRulesInPlace) {
  TempDir prefix;
  install_component(prefix.path(), "runtime");
  install_component(prefix.path(), "service");
  for (const char* path :
       {"bin/stallwatchd", "lib/systemd/system/stallwatchd.service",
        "etc/stallwatch/stallwatchd.toml", "share/stallwatch/stallwatch-rules.yml",
        "share/stallwatch/stallwatch-grafana.json"}) {
    EXPECT_TRUE(fs::exists(prefix.path() + "/" + path)) << path;
  }
  EXPECT_EQ(read_file(prefix.path() + "/etc/stallwatch/stallwatchd.toml"),
            read_file(kSource + "/systemd/stallwatchd.toml"));
  if (STALLWATCH_TEST_HAS_CLI) {
    EXPECT_TRUE(fs::exists(prefix.path() + "/bin/stallwatch"));
  }
}

TEST(Packaging, InstalledUnitRunsTheInstalledDaemonUnderTheWatchdogAndSandbox) {
  TempDir prefix;
  install_component(prefix.path(), "service");
  const std::string unit = read_file(prefix.path() + "/lib/systemd/system/stallwatchd.service");
  for (const char* line :
       {"Type=notify\n", "WatchdogSec=30s\n", "Restart=on-failure\n", "DynamicUser=yes\n",
        "RuntimeDirectory=stallwatch\n", "Environment=XDG_RUNTIME_DIR=%t\n",
        "ProtectSystem=strict\n", "NoNewPrivileges=yes\n", "MemoryMax=2G\n", "CPUQuota=200%\n",
        "PrivateTmp=yes\n", "ProtectHome=yes\n"}) {
    EXPECT_NE(unit.find(line), std::string::npos) << line;
  }
  // The paths follow the prefix given at install time, not the build's.
  const std::string exec = "ExecStart=" + prefix.path() + "/bin/stallwatchd --config " +
                           prefix.path() + "/etc/stallwatch/stallwatchd.toml\n";
  EXPECT_NE(unit.find(exec), std::string::npos) << unit;
}

}  // namespace
}  // namespace stallwatch::test
