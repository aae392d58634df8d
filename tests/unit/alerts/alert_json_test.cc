// SPDX-License-Identifier: MIT
#include "alert_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;  // 2023-11-14T22:13:20Z

Alert firing_alert() {
  Alert a;
  a.id = "DataStarved/demo slow/0";
  a.name = "DataStarved";
  a.phase = AlertPhase::kFiring;
  a.severity = "warning";
  a.job = "demo slow";
  a.rank = 0;
  a.metric = "data_stall_ratio";
  a.window = "60s";
  a.value = 0.61;
  a.threshold = 0.3;
  a.verdict = "data-starved";
  a.labels = {{"team", "ml"}};
  a.annotations = {{"summary", "Rank 0 is starved"}};
  a.active_since_ns = kT0;
  a.fired_at_ns = kT0 + 30 * kS;
  return a;
}

TEST(AlertJsonTest, Rfc3339IsUtcWithMilliseconds) {
  EXPECT_EQ(rfc3339(kT0), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(rfc3339(kT0 + 1'234'567'891), "2023-11-14T22:13:21.234Z");
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00.000Z");
}

TEST(AlertJsonTest, FingerprintMatchesPrometheus) {
  // Prometheus common/model signature_test: LabelsToSignature of these labels.
  EXPECT_EQ(alert_fingerprint({{"fear", "love is not enough"}, {"name", "garland, briggs"}}),
            "507a62d79ee76c9a");
  EXPECT_EQ(
      std::stoull(alert_fingerprint({{"fear", "love is not enough"}, {"name", "garland, briggs"}}),
                  nullptr, 16),
      5799056148416392346ull);
  EXPECT_EQ(alert_fingerprint({}), "cbf29ce484222325");
}

TEST(AlertJsonTest, GeneratorUrlLinksToTheJobInTheDashboard) {
  EXPECT_EQ(generator_url("http://h:8787", firing_alert()),
            "http://h:8787/#/jobs/demo%20slow?rank=0&window=60s");
  Alert job = firing_alert();
  job.rank.reset();
  job.window.clear();
  EXPECT_EQ(generator_url("http://h:8787", job), "http://h:8787/#/jobs/demo%20slow");
}

TEST(AlertJsonTest, AlertmanagerBodyHasLabelsTimesAndLinks) {
  const Alert firing = firing_alert();
  Alert resolved = firing_alert();
  resolved.phase = AlertPhase::kResolved;
  resolved.resolved_at_ns = kT0 + 90 * kS;
  const Alert alerts[] = {firing, resolved};
  const auto body =
      nlohmann::json::parse(alertmanager_body(alerts, kT0 + 60 * kS, 240 * kS, "http://h:8787"));
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  const auto& a = body[0];
  EXPECT_EQ(a["labels"], (nlohmann::json{{"alertname", "DataStarved"},
                                         {"job_id", "demo slow"},
                                         {"rank", "0"},
                                         {"severity", "warning"},
                                         {"team", "ml"}}));
  EXPECT_EQ(a["annotations"]["summary"], "Rank 0 is starved");
  EXPECT_EQ(a["startsAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(a["endsAt"], "2023-11-14T22:18:20.000Z");  // now + 240 s
  EXPECT_EQ(a["generatorURL"], "http://h:8787/#/jobs/demo%20slow?rank=0&window=60s");
  EXPECT_EQ(body[1]["endsAt"], "2023-11-14T22:14:50.000Z");  // its resolution time
}

TEST(AlertJsonTest, WebhookBodyIsAlertmanagerVersionFour) {
  Alert other = firing_alert();
  other.rank = 1;
  other.id = "DataStarved/demo slow/1";
  other.annotations = {{"summary", "Rank 1 is starved"}};
  const Alert alerts[] = {firing_alert(), other};
  const auto body = nlohmann::json::parse(webhook_body(alerts, "stallwatch", "http://h:8787"));
  EXPECT_EQ(body["version"], "4");
  EXPECT_EQ(body["status"], "firing");
  EXPECT_EQ(body["receiver"], "stallwatch");
  EXPECT_EQ(body["groupKey"], "{}:{alertname=\"DataStarved\"}");
  EXPECT_EQ(body["truncatedAlerts"], 0);
  EXPECT_EQ(body["groupLabels"], (nlohmann::json{{"alertname", "DataStarved"}}));
  EXPECT_EQ(body["commonLabels"], (nlohmann::json{{"alertname", "DataStarved"},
                                                  {"job_id", "demo slow"},
                                                  {"severity", "warning"},
                                                  {"team", "ml"}}));
  EXPECT_EQ(body["commonAnnotations"], nlohmann::json::object());
  EXPECT_EQ(body["externalURL"], "http://h:8787");
  ASSERT_EQ(body["alerts"].size(), 2u);
  const auto& a = body["alerts"][0];
  EXPECT_EQ(a["status"], "firing");
  EXPECT_EQ(a["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(a["startsAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(a["labels"]["rank"], "0");
  EXPECT_EQ(a["fingerprint"].get<std::string>().size(), 16u);
  EXPECT_NE(a["fingerprint"], body["alerts"][1]["fingerprint"]);
}

TEST(AlertJsonTest, WebhookStatusIsResolvedOnlyWhenAllAre) {
  Alert resolved = firing_alert();
  resolved.phase = AlertPhase::kResolved;
  resolved.resolved_at_ns = kT0 + 90 * kS;
  const Alert only_resolved[] = {resolved};
  auto body = nlohmann::json::parse(webhook_body(only_resolved, "r", "http://h"));
  EXPECT_EQ(body["status"], "resolved");
  EXPECT_EQ(body["alerts"][0]["endsAt"], "2023-11-14T22:14:50.000Z");
  const Alert mixed[] = {resolved, firing_alert()};
  body = nlohmann::json::parse(webhook_body(mixed, "r", "http://h"));
  EXPECT_EQ(body["status"], "firing");
}

TEST(AlertJsonTest, ExecJsonCarriesTheValues) {
  const auto j = nlohmann::json::parse(alert_json(firing_alert(), "http://h"));
  EXPECT_EQ(j["id"], "DataStarved/demo slow/0");
  EXPECT_EQ(j["rank"], 0);
  EXPECT_DOUBLE_EQ(j["value"].get<double>(), 0.61);
  EXPECT_EQ(j["verdict"], "data-starved");
  EXPECT_EQ(j["status"], "firing");
}

}  // namespace
}  // namespace stallwatch::collector
