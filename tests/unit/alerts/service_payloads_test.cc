// SPDX-License-Identifier: MIT
// The Slack and PagerDuty payloads, checked against the shapes the services
// document: Slack's incoming webhooks (text + Block Kit blocks) and
// PagerDuty's Events API v2 (POST /v2/enqueue).

#include "service_payloads.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "alert_json.h"

namespace stallwatch::collector {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;  // 2023-11-14T22:13:20Z
constexpr std::string_view kBase = "https://stallwatch.example";

Alert firing_alert() {
  Alert a;
  a.id = "DataStarved/demo slow/3";
  a.name = "DataStarved";
  a.phase = AlertPhase::kFiring;
  a.severity = "critical";
  a.job = "demo slow";
  a.rank = 3;
  a.metric = "data_stall_ratio";
  a.window = "60s";
  a.value = 0.61;
  a.threshold = 0.3;
  a.verdict = "data-starved";
  a.annotations = {{"summary", "Rank 3 of job demo slow is starved for data"}};
  a.active_since_ns = kT0;
  a.fired_at_ns = kT0 + 30 * kS;
  return a;
}

Alert resolved(Alert a) {
  a.phase = AlertPhase::kResolved;
  a.resolved_at_ns = kT0 + 90 * kS;
  return a;
}

// A Block Kit text object: {"type": "plain_text"|"mrkdwn", "text": <= max}.
void expect_text_object(const Json& t, std::size_t max, const char* type = nullptr) {
  ASSERT_TRUE(t.is_object()) << t;
  const std::string kind = t.at("type");
  EXPECT_TRUE(kind == "plain_text" || kind == "mrkdwn") << t;
  if (type) {
    EXPECT_EQ(kind, type) << t;
  }
  ASSERT_TRUE(t.at("text").is_string()) << t;
  const std::string text = t.at("text");
  EXPECT_FALSE(text.empty()) << t;
  EXPECT_LE(text.size(), max) << t;
}

// Slack's incoming webhook message: "text" (the notification fallback) and
// at most 50 "blocks" of the documented kinds with their limits.
void expect_slack_message(const Json& m) {
  ASSERT_TRUE(m.at("text").is_string());
  ASSERT_TRUE(m.at("blocks").is_array());
  EXPECT_LE(m.at("blocks").size(), 50u);
  for (const Json& b : m.at("blocks")) {
    const std::string type = b.at("type");
    if (type == "header") {
      expect_text_object(b.at("text"), 150, "plain_text");
    } else if (type == "section") {
      EXPECT_TRUE(b.contains("text") || b.contains("fields")) << b;
      if (b.contains("text")) expect_text_object(b.at("text"), 3000);
      if (b.contains("fields")) {
        EXPECT_LE(b.at("fields").size(), 10u);
        for (const Json& f : b.at("fields"))
          expect_text_object(f, 2000);
      }
    } else if (type == "actions") {
      EXPECT_LE(b.at("elements").size(), 25u);
      for (const Json& e : b.at("elements")) {
        EXPECT_EQ(e.at("type"), "button");
        expect_text_object(e.at("text"), 75, "plain_text");
        EXPECT_LE(e.at("url").get<std::string>().size(), 3000u);
      }
    } else {
      ADD_FAILURE() << "unexpected block type " << type;
    }
  }
}

// The Events API v2 event: routing_key, event_action, dedup_key (<= 255);
// a trigger carries payload.summary (<= 1024), source and severity.
void expect_pagerduty_event(const Json& e) {
  EXPECT_TRUE(e.at("routing_key").is_string());
  const std::string action = e.at("event_action");
  EXPECT_TRUE(action == "trigger" || action == "acknowledge" || action == "resolve");
  EXPECT_LE(e.at("dedup_key").get<std::string>().size(), 255u);
  if (action != "trigger") return;
  const Json& p = e.at("payload");
  EXPECT_LE(p.at("summary").get<std::string>().size(), 1024u);
  EXPECT_FALSE(p.at("summary").get<std::string>().empty());
  EXPECT_FALSE(p.at("source").get<std::string>().empty());
  EXPECT_TRUE(std::set<std::string>({"critical", "error", "warning", "info"})
                  .count(p.at("severity").get<std::string>()))
      << p;
  if (p.contains("custom_details")) {
    EXPECT_TRUE(p.at("custom_details").is_object());
  }
  for (const Json& l : e.value("links", Json::array())) {
    EXPECT_TRUE(l.at("href").is_string());
    EXPECT_TRUE(l.at("text").is_string());
  }
}

std::string all_text(const Json& blocks) {
  std::string out;
  for (const Json& b : blocks) {
    if (b.contains("text")) out += b.at("text").at("text").get<std::string>() + "\n";
    for (const Json& f : b.value("fields", Json::array()))
      out += f.at("text").get<std::string>() + "\n";
  }
  return out;
}

TEST(SlackPayloadTest, CarriesJobRankMetricValueAndDashboardLink) {
  const Json m = Json::parse(slack_body(firing_alert(), kBase));
  expect_slack_message(m);
  EXPECT_EQ(m.at("text"),
            "[FIRING] DataStarved: job demo slow rank 3: data_stall_ratio (60s) = 0.61 "
            "(threshold 0.3)");
  const std::string text = all_text(m.at("blocks"));
  EXPECT_NE(text.find("Firing: DataStarved"), std::string::npos) << text;
  EXPECT_NE(text.find("Rank 3 of job demo slow is starved for data"), std::string::npos) << text;
  EXPECT_NE(text.find("*Job*\ndemo slow"), std::string::npos) << text;
  EXPECT_NE(text.find("*Rank*\n3"), std::string::npos) << text;
  EXPECT_NE(text.find("*Metric*\ndata_stall_ratio (60s)"), std::string::npos) << text;
  EXPECT_NE(text.find("*Value*\n0.61 (threshold 0.3)"), std::string::npos) << text;
  EXPECT_NE(text.find("*Severity*\ncritical"), std::string::npos) << text;
  const Json& actions = m.at("blocks").back();
  ASSERT_EQ(actions.at("type"), "actions");
  EXPECT_EQ(actions.at("elements")[0].at("url"),
            "https://stallwatch.example/#/jobs/demo%20slow?rank=3&window=60s");
}

TEST(SlackPayloadTest, ResolvedJobScopeAndMarkupAreSpeltOut) {
  Alert a = resolved(firing_alert());
  a.rank.reset();
  a.job = "<!channel> & co";
  const Json m = Json::parse(slack_body(a, kBase));
  expect_slack_message(m);
  const std::string text = all_text(m.at("blocks"));
  EXPECT_NE(text.find("Resolved: DataStarved"), std::string::npos) << text;
  EXPECT_NE(text.find("*Rank*\nall ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("&lt;!channel&gt; &amp; co"), std::string::npos) << text;
  EXPECT_EQ(text.find("<!channel>"), std::string::npos) << text;
  EXPECT_EQ(m.at("text").get<std::string>().find("<!channel>"), std::string::npos);
}

TEST(SlackPayloadTest, LongTextStaysWithinTheBlockLimits) {
  Alert a = firing_alert();
  a.name = std::string(400, 'N');
  a.annotations = {{"summary", std::string(5000, 's')}};
  expect_slack_message(Json::parse(slack_body(a, "")));  // no link: no button either
  EXPECT_EQ(Json::parse(slack_body(a, "")).at("blocks").back().at("type"), "section");
}

TEST(PagerDutyPayloadTest, TriggerCarriesTheDocumentedFields) {
  const Json e = Json::parse(pagerduty_body(firing_alert(), "R0UT1NG", kBase));
  expect_pagerduty_event(e);
  EXPECT_EQ(e.at("routing_key"), "R0UT1NG");
  EXPECT_EQ(e.at("event_action"), "trigger");
  const Json& p = e.at("payload");
  EXPECT_EQ(p.at("summary"), "DataStarved: Rank 3 of job demo slow is starved for data");
  EXPECT_EQ(p.at("source"), "demo slow");
  EXPECT_EQ(p.at("severity"), "critical");
  EXPECT_EQ(p.at("timestamp"), rfc3339(kT0 + 30 * kS));
  EXPECT_EQ(p.at("component"), "rank 3");
  EXPECT_EQ(p.at("class"), "data_stall_ratio");
  EXPECT_EQ(p.at("custom_details").at("rank"), 3);
  EXPECT_DOUBLE_EQ(p.at("custom_details").at("value").get<double>(), 0.61);
  EXPECT_EQ(e.at("links")[0].at("href"),
            "https://stallwatch.example/#/jobs/demo%20slow?rank=3&window=60s");
}

TEST(PagerDutyPayloadTest, ResolveClosesTheIncidentTheTriggerOpened) {
  const Json trigger = Json::parse(pagerduty_body(firing_alert(), "k", kBase));
  const Json resolve = Json::parse(pagerduty_body(resolved(firing_alert()), "k", kBase));
  expect_pagerduty_event(resolve);
  EXPECT_EQ(resolve.at("event_action"), "resolve");
  EXPECT_EQ(resolve.at("dedup_key"), trigger.at("dedup_key"));
  EXPECT_FALSE(resolve.contains("payload"));
  // Stable: the same alert gets the same key again (after a restart too);
  // another rank gets another.
  EXPECT_EQ(pagerduty_dedup_key(firing_alert()), trigger.at("dedup_key"));
  Alert other = firing_alert();
  other.rank = 4;
  EXPECT_NE(pagerduty_dedup_key(other), trigger.at("dedup_key"));
}

TEST(PagerDutyPayloadTest, SeverityIsOneOfPagerDutys) {
  EXPECT_EQ(pagerduty_severity("critical"), "critical");
  EXPECT_EQ(pagerduty_severity("info"), "info");
  EXPECT_EQ(pagerduty_severity("page"), "critical");
  EXPECT_EQ(pagerduty_severity("ticket"), "warning");
  EXPECT_EQ(pagerduty_severity(""), "warning");
  Alert a = firing_alert();
  a.severity = "ticket";
  a.annotations.clear();
  const Json e = Json::parse(pagerduty_body(a, "k", kBase));
  expect_pagerduty_event(e);
  EXPECT_EQ(e.at("payload").at("severity"), "warning");
  EXPECT_EQ(e.at("payload").at("summary"),
            "[FIRING] DataStarved: job demo slow rank 3: data_stall_ratio (60s) = 0.61 "
            "(threshold 0.3)");
}

}  // namespace
}  // namespace stallwatch::collector
