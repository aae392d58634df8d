// SPDX-License-Identifier: MIT
#include "alerts/alerts_config_toml.h"

#include <gtest/gtest.h>

#include <sstream>

#include "alerts/alerts_config.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
const std::vector<std::int64_t> kWindows{10 * kS, 60 * kS, 300 * kS};

// Parses `text` as a whole stallwatchd.toml and applies its [alerts].
std::string load(const std::string& text, AlertsConfig& config) {
  std::istringstream in(text);
  const toml::value root = toml::parse(in, "test.toml");
  if (auto err = apply_alerts_toml(root.as_table().at("alerts"), "test.toml", config); !err.empty())
    return err;
  return validate(config, kWindows);
}

TEST(AlertsConfigTomlTest, DefaultsRunWhenThereAreNoRules) {
  AlertsConfig c;
  ASSERT_EQ(load("[alerts]\n", c), "");
  const auto rules = c.effective_rules(kWindows);
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[3].name, "JobHeldBack");
  EXPECT_EQ(rules[3].metric, "straggler_cost_ratio");
  EXPECT_EQ(rules[3].scope, AlertScope::kJob);
  EXPECT_DOUBLE_EQ(rules[3].threshold, 0.2);
  EXPECT_DOUBLE_EQ(rules[3].clear, 0.15);
  EXPECT_EQ(rules[0].name, "DataStarved");
  EXPECT_EQ(rules[0].metric, "data_stall_ratio");
  EXPECT_EQ(rules[0].window_ns, 60 * kS);
  EXPECT_DOUBLE_EQ(rules[0].threshold, 0.3);
  EXPECT_EQ(rules[0].for_ns, 30 * kS);
  EXPECT_EQ(rules[1].name, "DeviceIdle");
  EXPECT_EQ(rules[1].for_ns, 120 * kS);
  EXPECT_DOUBLE_EQ(rules[1].threshold, 0.5);
  EXPECT_EQ(rules[2].name, "RankSilent");
  EXPECT_EQ(rules[2].metric, "silent_seconds");
  EXPECT_DOUBLE_EQ(rules[2].threshold, 30);
}

TEST(AlertsConfigTomlTest, DefaultsFalseTurnsThemOff) {
  AlertsConfig c;
  ASSERT_EQ(load("[alerts]\ndefaults = false\n", c), "");
  EXPECT_TRUE(c.effective_rules(kWindows).empty());
}

TEST(AlertsConfigTomlTest, ConfiguredRulesReplaceTheDefaults) {
  AlertsConfig c;
  ASSERT_EQ(load(R"([alerts]
log = false
external_url = "http://stallwatch.example:8787/"

[[alerts.rule]]
name = "SlowSteps"
metric = "steps_per_second"
window = "10s"
below = 2.5
clear = 3
for = "15s"
keep_firing_for = "30s"
scope = "job"
aggregate = "max"
warmup = "1m"
severity = "page"
cause = "storage"
labels = { team = "ml" }
annotations = { summary = "{job} is slow: {value} steps/s" }
)",
                 c),
            "");
  EXPECT_FALSE(c.log);
  EXPECT_EQ(c.external_url, "http://stallwatch.example:8787");
  const auto rules = c.effective_rules(kWindows);
  ASSERT_EQ(rules.size(), 1u);
  const AlertRule& r = rules[0];
  EXPECT_EQ(r.name, "SlowSteps");
  EXPECT_EQ(r.comparison, AlertComparison::kBelow);
  EXPECT_DOUBLE_EQ(r.threshold, 2.5);
  EXPECT_DOUBLE_EQ(r.clear, 3.0);
  EXPECT_EQ(r.window_ns, 10 * kS);
  EXPECT_EQ(r.for_ns, 15 * kS);
  EXPECT_EQ(r.keep_firing_for_ns, 30 * kS);
  EXPECT_EQ(r.scope, AlertScope::kJob);
  EXPECT_EQ(r.aggregate, JobAggregate::kMax);
  EXPECT_EQ(r.warmup_ns, 60 * kS);
  EXPECT_EQ(r.severity, "page");
  EXPECT_EQ(r.cause, "storage");
  EXPECT_EQ(r.labels, (AlertLabels{{"team", "ml"}}));
  EXPECT_EQ(r.origin, "test.toml:5");  // the [[alerts.rule]] line
}

TEST(AlertsConfigTomlTest, SinksParseWithTheirDefaults) {
  AlertsConfig c;
  ASSERT_EQ(load(R"([alerts]
[[alerts.alertmanager]]
url = "http://127.0.0.1:9093"
resend_interval = "30s"

[[alerts.alertmanager]]
url = "http://10.0.0.2:9093/prefix"

[[alerts.webhook]]
url = "http://hooks.local/stallwatch"
headers = { Authorization = "Bearer abc" }
max_attempts = 3
timeout = "2s"

[[alerts.exec]]
command = ["/usr/local/bin/page", "--team", "ml"]
max_per_minute = 2
)",
                 c),
            "");
  ASSERT_EQ(c.alertmanagers.size(), 2u);
  EXPECT_EQ(c.alertmanagers[0].delivery.name, "alertmanager");
  EXPECT_EQ(c.alertmanagers[1].delivery.name, "alertmanager-2");
  EXPECT_EQ(c.alertmanagers[0].resend_interval_ns, 30 * kS);
  EXPECT_EQ(c.alertmanagers[1].resend_interval_ns, 60 * kS);
  ASSERT_EQ(c.webhooks.size(), 1u);
  EXPECT_EQ(c.webhooks[0].delivery.max_attempts, 3);
  EXPECT_EQ(c.webhooks[0].delivery.timeout_ns, 2 * kS);
  EXPECT_EQ(c.webhooks[0].headers, (AlertLabels{{"Authorization", "Bearer abc"}}));
  ASSERT_EQ(c.execs.size(), 1u);
  EXPECT_EQ(c.execs[0].command, (std::vector<std::string>{"/usr/local/bin/page", "--team", "ml"}));
  EXPECT_EQ(c.execs[0].delivery.max_attempts, 1);
  EXPECT_EQ(c.execs[0].delivery.timeout_ns, 10 * kS);
  EXPECT_DOUBLE_EQ(c.execs[0].delivery.max_per_minute, 2);
}

struct BadCase {
  const char* toml;
  const char* expected;  // a substring of the error
};

TEST(AlertsConfigTomlTest, ErrorsNameFileLineAndKey) {
  const BadCase cases[] = {
      {"[alerts]\ndefault = true\n", "test.toml:2: alerts.default: unknown key"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\nfor = "
       "\"3x\"\n",
       "test.toml:6: alerts.rule[0].for: '3x' is not a duration"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\n",
       "alerts.rule[0]: needs exactly one of 'above' and 'below'"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\nbelow "
       "= 0.1\n",
       "needs exactly one of 'above' and 'below'"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"stall\"\nabove = 0.3\n",
       "test.toml:4: alerts.rule[0].metric: unknown metric 'stall' (known: wall_seconds, "},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nwindow = "
       "\"30s\"\nabove = 0.3\n",
       "test.toml:2: alert rule 'X': window 30s is not one of the engine's windows (10s, 60s, "
       "300s, total)"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\nclear "
       "= 0.4\n",
       "clear must be at most the threshold"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\nscope "
       "= \"host\"\n",
       "test.toml:6: alerts.rule[0].scope: expected \"rank\" or \"job\""},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\n"
       "annotations = { summary = \"{{ $labels.rank }}\" }\n",
       "Go template syntax"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\n"
       "annotations = { summary = \"{labels.rank}\" }\n",
       "unknown placeholder '{labels.rank}'"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = "
       "0.3\nlabels = { rank = \"1\" }\n",
       "label 'rank' is set by stallwatch"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\n"
       "[[alerts.rule]]\nname = \"X\"\nmetric = \"device_idle_ratio\"\nabove = 0.3\n",
       "defined twice"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"silent_seconds\"\nwindow = "
       "\"60s\"\nabove = 30\n",
       "silent_seconds has no window"},
      {"[alerts]\n[[alerts.rule]]\nname = \"X\"\nmetric = \"data_stall_ratio\"\nabove = 0.3\n"
       "cause = \"disk\"\n",
       "test.toml:6: alerts.rule[0].cause: expected \"storage\", \"preprocessing\" or "
       "\"unknown\", got 'disk'"},
      {"[alerts]\n[[alerts.alertmanager]]\nurl = \"ftp://am:9093\"\n", "only http:// and https://"},
      {"[alerts]\n[[alerts.webhook]]\nurl = \"https://x\"\nformat = \"teams\"\n",
       "alerts.webhook[0].format: expected \"generic\", \"slack\" or \"pagerduty\", got 'teams'"},
      {"[alerts]\n[[alerts.webhook]]\nurl = \"https://x\"\nformat = \"pagerduty\"\n",
       "needs 'routing_key'"},
      {"[alerts]\n[[alerts.webhook]]\nurl = \"https://x\"\nrouting_key = \"k\"\n",
       "routing_key: only applies to format = \"pagerduty\""},
      {"[alerts]\n[[alerts.webhook]]\nurl = \"https://x\"\nca_file = \"/nonexistent/ca.pem\"\n",
       "alerts.webhook[0].ca_file: cannot read '/nonexistent/ca.pem'"},
      {"[alerts]\n[[alerts.alertmanager]]\nurl = \"https://x\"\nclient_key = \"/dev/null\"\n",
       "client_key: needs 'client_cert'"},
      {"[alerts]\n[[alerts.webhook]]\nurll = \"http://x\"\n",
       "alerts.webhook[0].urll: unknown key"},
      {"[alerts]\n[[alerts.exec]]\ncommand = \"/bin/page --now\"\n",
       "test.toml:3: alerts.exec[0].command: expected a list of strings"},
      {"[alerts]\n[[alerts.exec]]\ncommand = [\"a\"]\nname = \"x\"\n[[alerts.exec]]\ncommand = "
       "[\"b\"]\nname = \"x\"\n",
       "two sinks are named 'x'"},
  };
  for (const BadCase& c : cases) {
    AlertsConfig config;
    const std::string err = load(c.toml, config);
    EXPECT_NE(err.find(c.expected), std::string::npos) << "config:\n"
                                                       << c.toml << "\nerror: " << err;
  }
}

TEST(AlertsConfigTomlTest, HttpsSinksTakeTlsFilesAndAFormat) {
  AlertsConfig c;
  ASSERT_EQ(load(R"([alerts]
[[alerts.alertmanager]]
url = "https://am.example:9093"
ca_file = "/dev/null"
client_cert = "/dev/null"
client_key = "/dev/null"
[[alerts.webhook]]
url = "https://hooks.slack.com/services/T0/B0/x"
format = "slack"
[[alerts.webhook]]
url = "https://events.pagerduty.com/v2/enqueue"
format = "pagerduty"
routing_key = "R0UT1NG"
ca_file = "/dev/null"
)",
                 c),
            "");
  ASSERT_EQ(c.alertmanagers.size(), 1u);
  EXPECT_EQ(c.alertmanagers[0].tls.ca_file, "/dev/null");
  EXPECT_EQ(c.alertmanagers[0].tls.client_cert, "/dev/null");
  EXPECT_EQ(c.alertmanagers[0].tls.client_key, "/dev/null");
  ASSERT_EQ(c.webhooks.size(), 2u);
  EXPECT_EQ(c.webhooks[0].format, WebhookFormat::kSlack);
  EXPECT_EQ(c.webhooks[0].tls.ca_file, "");
  EXPECT_EQ(c.webhooks[1].format, WebhookFormat::kPagerDuty);
  EXPECT_EQ(c.webhooks[1].routing_key, "R0UT1NG");
  EXPECT_EQ(c.webhooks[1].tls.ca_file, "/dev/null");
}

TEST(AlertsConfigTomlTest, DefaultRulesWithoutTheirWindowAreLeftOut) {
  AlertsConfig c;
  std::istringstream in("[alerts]\n");
  const toml::value root = toml::parse(in, "test.toml");
  ASSERT_EQ(apply_alerts_toml(root.as_table().at("alerts"), "test.toml", c), "");
  const std::vector<std::int64_t> no_minute{10 * kS, 300 * kS};
  EXPECT_EQ(validate(c, no_minute), "");  // not the user's mistake
  std::vector<std::string> skipped;
  const auto rules = c.effective_rules(no_minute, &skipped);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].name, "RankSilent");
  EXPECT_EQ(skipped, (std::vector<std::string>{"DataStarved", "DeviceIdle", "JobHeldBack"}));
}

}  // namespace
}  // namespace stallwatch::collector
