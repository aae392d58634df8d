// SPDX-License-Identifier: MIT
// A starving scripted rank against a real stallwatchd, a real Alertmanager
// (Debian prometheus-alertmanager) and test receivers: the DataStarved alert
// reaches Alertmanager, the webhook receiver and the exec sink, and resolves
// when the rank turns healthy. The scenario runs once (SetUpTestSuite); each
// test checks one aspect of what was recorded.

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "daemon_process.h"
#include "external_tools.h"
#include "http_receiver.h"
#include "scripted_rank.h"

namespace stallwatch::test {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr std::int64_t kForNs = 2'000'000'000;
constexpr std::int64_t kTickNs = 500'000'000;
constexpr const char* kJob = "itest-starving";

std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2024-05-01T12:00:00.123456789Z" (Alertmanager writes up to ns) -> Unix ns.
std::int64_t parse_rfc3339(const std::string& s) {
  std::tm tm{};
  std::istringstream in(s.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  std::int64_t ns = static_cast<std::int64_t>(timegm(&tm)) * 1'000'000'000;
  if (s.size() > 20 && s[19] == '.') {
    std::string frac;
    for (std::size_t i = 20; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
      frac += s[i];
    frac.resize(9, '0');
    ns += std::stoll(frac);
  }
  return ns;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the scenario saw, for the tests and the report.
struct Recorded {
  bool ok = false;
  std::string failure;
  std::int64_t first_batch_ns = 0;
  std::int64_t healthy_from_ns = 0;
  Json daemon_firing;  // the alert in stallwatchd's /api/v1/alerts when firing
  Json daemon_resolved;
  Json am_alert;                   // the alert in Alertmanager's /api/v2/alerts
  std::int64_t am_seen_ns = 0;     // when the test first saw it there
  std::int64_t am_gone_ns = 0;     // when it left (resolved)
  std::vector<Json> am_webhooks;   // what Alertmanager sent to its receiver
  std::vector<Json> our_webhooks;  // what stallwatchd's webhook sink sent
  std::string our_webhook_path;
  std::string exec_log;
  std::string status_json;
  std::string metrics;
  std::string daemon_log;
  std::string alertmanager_log;
};

Recorded* recorded = nullptr;

Json find_alert(const Json& list, const std::string& state) {
  for (const auto& a : list) {
    if (a.value("name", "") == "DataStarved" && a.value("state", "") == state) return a;
  }
  return nullptr;
}

class AlertmanagerScenario : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    recorded = new Recorded;
    Recorded& r = *recorded;
    TempDir dir;
    HttpReceiver our_hook;  // stallwatchd's webhook sink posts here
    HttpReceiver am_hook;   // Alertmanager's own webhook receiver

    const int am_port = free_tcp_port();
    const std::string am_config = dir.path() + "/alertmanager.yml";
    std::ofstream(am_config) << "route:\n"
                                "  receiver: test\n"
                                "  group_by: ['alertname']\n"
                                "  group_wait: 0s\n"
                                "  group_interval: 1s\n"
                                "  repeat_interval: 1h\n"
                                "receivers:\n"
                                "  - name: test\n"
                                "    webhook_configs:\n"
                                "      - url: "
                             << am_hook.url()
                             << "/am\n"
                                "        send_resolved: true\n";
    ChildProcess am({{STALLWATCH_TEST_ALERTMANAGER, "--config.file=" + am_config,
                      "--storage.path=" + dir.path() + "/am-data",
                      "--web.listen-address=127.0.0.1:" + std::to_string(am_port),
                      "--cluster.listen-address=", "--log.level=debug"},
                     {},
                     dir.path() + "/alertmanager.log"});
    const auto fail = [&](const std::string& what, DaemonProcess* d) {
      r.failure = what;
      r.alertmanager_log = am.output();
      if (d != nullptr) r.daemon_log = d->log();
    };
    if (!am.start() || !wait_http_ready(am, am_port, "/-/ready", 30s))
      return fail("Alertmanager did not start", nullptr);

    const std::string exec_log = dir.path() + "/exec.log";
    DaemonOptions options;
    options.config_toml = std::string(R"([engine]
windows = ["2s", "10s"]
verdict_window = "2s"

[alerts]
[[alerts.rule]]
name = "DataStarved"
metric = "data_stall_ratio"
window = "2s"
above = 0.3
clear = 0.25
for = "2s"
labels = { team = "ml" }
annotations = { summary = "Rank {rank} of job {job} is starved for data", description = "stall {value} over {window}; verdict {verdict}" }

[[alerts.alertmanager]]
url = "http://127.0.0.1:)") +
                          std::to_string(am_port) + R"("
resend_interval = "1s"

[[alerts.webhook]]
url = ")" + our_hook.url() +
                          R"(/hook"
receiver = "itest"

[[alerts.exec]]
command = ["/bin/sh", "-c", "echo \"$STALLWATCH_ALERT_STATUS $STALLWATCH_ALERT_NAME $STALLWATCH_ALERT_JOB $STALLWATCH_ALERT_RANK\" >> \"$0\"", ")" +
                          exec_log + R"("]
)";
    DaemonProcess daemon(options);
    if (!daemon.start()) return fail("stallwatchd did not start", &daemon);

    ScriptedRank rank(daemon.tcp_endpoint(), kJob, 0, 0.6);
    rank.start();
    const auto alerts = [&] {
      const auto res = daemon.get("/api/v1/alerts");
      return res.status == 200 ? Json::parse(res.body)["alerts"] : Json::array();
    };
    if (!wait_until([&] { return !(r.daemon_firing = find_alert(alerts(), "firing")).is_null(); },
                    30s, 20ms)) {
      return fail("stallwatchd never fired DataStarved", &daemon);
    }
    r.first_batch_ns = rank.first_sent_ns();
    const auto am_alerts = [&] {
      const auto res = http_get(am_port, "/api/v2/alerts");
      return res.status == 200 ? Json::parse(res.body) : Json::array();
    };
    if (!wait_until(
            [&] {
              for (const auto& a : am_alerts()) {
                if (a["labels"].value("alertname", "") == "DataStarved") r.am_alert = a;
              }
              return !r.am_alert.is_null();
            },
            10s, 20ms)) {
      return fail("Alertmanager never held DataStarved", &daemon);
    }
    r.am_seen_ns = unix_now_ns();
    if (!our_hook.wait_for(1, 10s)) return fail("the webhook sink sent nothing", &daemon);

    rank.set_stall_share(0.05);
    r.healthy_from_ns = unix_now_ns();
    if (!wait_until(
            [&] { return !(r.daemon_resolved = find_alert(alerts(), "resolved")).is_null(); }, 30s,
            20ms)) {
      return fail("stallwatchd never resolved DataStarved", &daemon);
    }
    if (!wait_until(
            [&] {
              for (const auto& a : am_alerts()) {
                if (a["labels"].value("alertname", "") == "DataStarved") return false;
              }
              return true;
            },
            10s, 20ms)) {
      return fail("Alertmanager kept DataStarved active", &daemon);
    }
    r.am_gone_ns = unix_now_ns();
    const auto has_resolved = [](const HttpReceiver& h) {
      for (const auto& req : h.requests()) {
        if (Json::parse(req.body).value("status", "") == "resolved") return true;
      }
      return false;
    };
    if (!wait_until([&] { return has_resolved(our_hook) && has_resolved(am_hook); }, 15s, 20ms)) {
      return fail("no resolved webhook", &daemon);
    }
    std::this_thread::sleep_for(2500ms);  // Alertmanager re-sends happen; exec must not run again
    for (const auto& req : our_hook.requests())
      r.our_webhooks.push_back(Json::parse(req.body));
    r.our_webhook_path = our_hook.requests().front().target;
    for (const auto& req : am_hook.requests())
      r.am_webhooks.push_back(Json::parse(req.body));
    r.exec_log = read_file(exec_log);
    r.status_json = daemon.get("/api/v1/status").body;
    r.metrics = daemon.get("/metrics").body;
    rank.stop();
    r.daemon_log = daemon.log();
    r.alertmanager_log = am.output();
    r.ok = true;
  }

  static void TearDownTestSuite() {
    delete recorded;
    recorded = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(recorded->ok) << recorded->failure << "\n--- stallwatchd log:\n"
                              << recorded->daemon_log << "\n--- alertmanager log (tail):\n"
                              << recorded->alertmanager_log.substr(
                                     recorded->alertmanager_log.size() > 4000
                                         ? recorded->alertmanager_log.size() - 4000
                                         : 0);
  }
};

TEST_F(AlertmanagerScenario, AlertmanagerHoldsDataStarvedWithinForPlusTwoTicks) {
  const Recorded& r = *recorded;
  const Json& a = r.am_alert;
  std::cout << "Alertmanager /api/v2/alerts held: " << a.dump() << "\n";
  EXPECT_EQ(a["labels"], (Json{{"alertname", "DataStarved"},
                               {"job_id", kJob},
                               {"rank", "0"},
                               {"severity", "warning"},
                               {"team", "ml"}}));
  EXPECT_EQ(a["annotations"]["summary"],
            std::string("Rank 0 of job ") + kJob + " is starved for data");
  EXPECT_EQ(a["status"]["state"], "active");
  EXPECT_NE(a["generatorURL"].get<std::string>().find(std::string("/#/jobs/") + kJob +
                                                      "?rank=0&window=2s"),
            std::string::npos);
  const std::int64_t active_since = r.daemon_firing["active_since_ns"];
  const std::int64_t fired_at = r.daemon_firing["fired_at_ns"];
  // startsAt is when the condition first held (pending); Alertmanager keeps ms.
  EXPECT_NEAR(static_cast<double>(parse_rfc3339(a["startsAt"])), static_cast<double>(active_since),
              1e6);
  EXPECT_GE(fired_at - active_since, kForNs - 5'000'000);  // kAlertTimerSlackNs: tick jitter
  EXPECT_LE(fired_at - active_since,
            kForNs + kTickNs + kTickNs / 2);  // ticks jitter on a loaded machine
  const std::int64_t seen_after = r.am_seen_ns - active_since;
  std::cout << "condition held at " << active_since << ", fired " << (fired_at - active_since) / 1e6
            << " ms later, seen in Alertmanager " << seen_after / 1e6
            << " ms after the condition held (" << (active_since - r.first_batch_ns) / 1e6
            << " ms after the first batch)\n";
  EXPECT_LE(seen_after, kForNs + 2 * kTickNs) << "for + 2 ticks";
  // Firing alerts are sent with endsAt = now + 4 x resend_interval (1s).
  const std::int64_t ends = parse_rfc3339(a["endsAt"]);
  EXPECT_GT(ends, active_since + kForNs);
  EXPECT_LT(ends, r.am_seen_ns + 6'000'000'000);
}

TEST_F(AlertmanagerScenario, AlertmanagerResolvesItWhenTheRankTurnsHealthy) {
  const Recorded& r = *recorded;
  const std::int64_t resolved_at = r.daemon_resolved["resolved_at_ns"];
  EXPECT_GT(resolved_at, r.healthy_from_ns);
  std::cout << "resolved by stallwatchd " << (resolved_at - r.healthy_from_ns) / 1e6
            << " ms after the schedule turned healthy; gone from Alertmanager's active alerts "
            << (r.am_gone_ns - resolved_at) / 1e6 << " ms after that\n";
  // Alertmanager's own webhook reported the resolution with our endsAt.
  Json resolved;
  for (const auto& w : r.am_webhooks) {
    if (w["status"] == "resolved") resolved = w;
  }
  ASSERT_FALSE(resolved.is_null());
  std::cout << "Alertmanager notified its receiver: " << resolved.dump() << "\n";
  ASSERT_EQ(resolved["alerts"].size(), 1u);
  const Json& alert = resolved["alerts"][0];
  EXPECT_EQ(alert["status"], "resolved");
  EXPECT_EQ(alert["labels"]["alertname"], "DataStarved");
  EXPECT_NEAR(static_cast<double>(parse_rfc3339(alert["endsAt"])), static_cast<double>(resolved_at),
              1e6);
  EXPECT_EQ(alert["fingerprint"], r.am_alert["fingerprint"]);
}

TEST_F(AlertmanagerScenario, WebhookReceiverGetsVersionFourPayloads) {
  const Recorded& r = *recorded;
  EXPECT_EQ(r.our_webhook_path, "/hook");
  ASSERT_GE(r.our_webhooks.size(), 2u);
  const Json& firing = r.our_webhooks.front();
  std::cout << "webhook firing payload: " << firing.dump() << "\n";
  std::cout << "webhook resolved payload: " << r.our_webhooks.back().dump() << "\n";
  for (const char* key :
       {"version", "groupKey", "truncatedAlerts", "status", "receiver", "groupLabels",
        "commonLabels", "commonAnnotations", "externalURL", "alerts"}) {
    EXPECT_TRUE(firing.contains(key)) << key;
  }
  EXPECT_EQ(firing["version"], "4");
  EXPECT_EQ(firing["status"], "firing");
  EXPECT_EQ(firing["receiver"], "itest");
  EXPECT_EQ(firing["groupLabels"], (Json{{"alertname", "DataStarved"}}));
  EXPECT_EQ(firing["commonLabels"]["job_id"], kJob);
  ASSERT_EQ(firing["alerts"].size(), 1u);
  const Json& a = firing["alerts"][0];
  EXPECT_EQ(a["status"], "firing");
  EXPECT_EQ(a["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(a["labels"]["rank"], "0");
  EXPECT_EQ(a["annotations"]["description"].get<std::string>().rfind(
                "stall 0.6 over 2s; verdict data-starved", 0),
            0u)
      << a["annotations"]["description"];
  // Our fingerprint is Alertmanager's.
  EXPECT_EQ(a["fingerprint"], r.am_alert["fingerprint"]);
  const Json& resolved = r.our_webhooks.back();
  EXPECT_EQ(resolved["status"], "resolved");
  EXPECT_EQ(resolved["alerts"][0]["status"], "resolved");
  EXPECT_NE(resolved["alerts"][0]["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(r.our_webhooks.size(), 2u) << "one request per transition (no repeat_interval)";
}

TEST_F(AlertmanagerScenario, ExecSinkRunsOncePerTransition) {
  const Recorded& r = *recorded;
  EXPECT_EQ(r.exec_log, std::string("firing DataStarved ") + kJob + " 0\nresolved DataStarved " +
                            kJob + " 0\n");
}

TEST_F(AlertmanagerScenario, DaemonCountsDeliveriesAndShowsTheResolvedAlert) {
  const Recorded& r = *recorded;
  EXPECT_LE(r.daemon_resolved["value"].get<double>(), 0.25);  // the clear threshold
  EXPECT_EQ(r.daemon_firing["verdict"], "data-starved");
  EXPECT_EQ(r.daemon_firing["labels"], (Json{{"team", "ml"}}));
  EXPECT_NE(
      r.metrics.find(
          "stallwatch_alert_state{alertname=\"DataStarved\",job_id=\"itest-starving\",rank=\"0\","
          "severity=\"warning\",state=\"resolved\"} 1"),
      std::string::npos);
  EXPECT_NE(r.daemon_log.find("alert DataStarved firing [warning]: job itest-starving rank 0"),
            std::string::npos)
      << r.daemon_log;
  EXPECT_EQ(r.daemon_log.find("failed to deliver"), std::string::npos) << r.daemon_log;
  // Every sink delivered both transitions (Alertmanager also its re-sends).
  const Json sinks = Json::parse(r.status_json)["alert_sinks"];
  std::cout << "alert_sinks in /api/v1/status: " << sinks.dump() << "\n";
  ASSERT_EQ(sinks.size(), 4u);
  for (const auto& sink : sinks) {
    if (sink["kind"] == "alertmanager") {
      EXPECT_GE(sink["sent"].get<int>(), 3) << sink;
    } else {
      EXPECT_EQ(sink["sent"], 2) << sink;
    }
    EXPECT_EQ(sink["failed_attempts"], 0) << sink;
    EXPECT_EQ(sink["dropped"], (Json{{"queue_full", 0}, {"retries", 0}, {"rate_limited", 0}}))
        << sink;
  }
  EXPECT_NE(r.metrics.find("stallwatch_alert_notifications_sent_total{sink=\"exec\"} 2\n"),
            std::string::npos);
  EXPECT_NE(
      r.metrics.find(
          "stallwatch_alert_notifications_dropped_total{sink=\"webhook\",reason=\"retries\"} 0\n"),
      std::string::npos);
}

}  // namespace
}  // namespace stallwatch::test
