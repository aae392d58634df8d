// SPDX-License-Identifier: MIT
#include "service_payloads.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "alert_json.h"

namespace stallwatch::collector {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kSlackHeaderMax = 150;  // plain_text in a header block
constexpr std::size_t kSlackTextMax = 3000;   // a section's text
constexpr std::size_t kSlackFieldMax = 2000;  // one of a section's fields
constexpr std::size_t kPagerDutySummaryMax = 1024;

std::string number_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string truncated(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  s.resize(max - 3);
  // Do not cut a UTF-8 sequence in two.
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80)
    s.pop_back();
  if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80) != 0) s.pop_back();
  return s + "...";
}

// Slack reads &, < and > as markup (<!channel> notifies everyone).
std::string slack_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string annotation(const Alert& a, std::string_view name) {
  for (const auto& [key, value] : a.annotations) {
    if (key == name) return value;
  }
  return {};
}

std::string metric_text(const Alert& a) {
  return a.window.empty() ? a.metric : a.metric + " (" + a.window + ")";
}

std::string rank_text(const Alert& a) {
  return a.rank ? std::to_string(*a.rank) : std::string("all ranks");
}

std::string threshold_text(const Alert& a) {
  return " (threshold " + number_text(a.threshold) + ")";
}

bool is_absolute(std::string_view url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

bool is_resolved(const Alert& a) {
  return a.phase == AlertPhase::kResolved;
}

Json mrkdwn(std::string text, std::size_t max = kSlackTextMax) {
  return Json{{"type", "mrkdwn"}, {"text", truncated(std::move(text), max)}};
}

Json field(std::string text) {
  return mrkdwn(std::move(text), kSlackFieldMax);
}

Json plain(std::string text, std::size_t max) {
  return Json{{"type", "plain_text"}, {"text", truncated(std::move(text), max)}};
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string alert_headline(const Alert& a) {
  std::string out = is_resolved(a) ? "[RESOLVED] " : "[FIRING] ";
  out += a.name + ": job " + a.job;
  if (a.rank) out += " rank " + std::to_string(*a.rank);
  out += ": " + metric_text(a) + " = " + number_text(a.value);
  out += threshold_text(a);
  return out;
}

std::string slack_body(const Alert& a, std::string_view base_url) {
  const std::string link = generator_url(base_url, a);
  const std::string summary = annotation(a, "summary");
  Json blocks = Json::array();
  blocks.push_back(Json{
      {"type", "header"},
      {"text", plain((is_resolved(a) ? "Resolved: " : "Firing: ") + a.name, kSlackHeaderMax)}});
  if (!summary.empty())
    blocks.push_back(Json{{"type", "section"}, {"text", mrkdwn(slack_escape(summary))}});
  Json fields = Json::array();
  fields.push_back(field("*Job*\n" + slack_escape(a.job)));
  fields.push_back(field("*Rank*\n" + rank_text(a)));
  fields.push_back(field("*Metric*\n" + slack_escape(metric_text(a))));
  fields.push_back(field("*Value*\n" + number_text(a.value) + threshold_text(a)));
  if (!a.severity.empty()) fields.push_back(field("*Severity*\n" + slack_escape(a.severity)));
  blocks.push_back(Json{{"type", "section"}, {"fields", std::move(fields)}});
  if (is_absolute(link)) {
    blocks.push_back(Json{
        {"type", "actions"},
        {"elements",
         Json::array({Json{
             {"type", "button"}, {"text", plain("Open in the dashboard", 75)}, {"url", link}}})}});
  }
  Json j;
  j["text"] = truncated(slack_escape(alert_headline(a)), kSlackTextMax);
  j["blocks"] = std::move(blocks);
  return dump(j);
}

std::string pagerduty_dedup_key(const Alert& a) {
  return "stallwatch-" + alert_fingerprint(identity_labels(a));
}

std::string_view pagerduty_severity(std::string_view severity) {
  for (std::string_view known : {"critical", "error", "warning", "info"}) {
    if (severity == known) return known;
  }
  if (severity == "page") return "critical";
  return "warning";
}

std::string pagerduty_body(const Alert& a, std::string_view routing_key,
                           std::string_view base_url) {
  Json j;
  j["routing_key"] = routing_key;
  j["event_action"] = is_resolved(a) ? "resolve" : "trigger";
  j["dedup_key"] = pagerduty_dedup_key(a);
  if (is_resolved(a)) return dump(j);
  const std::string link = generator_url(base_url, a);
  const std::string summary = annotation(a, "summary");
  Json details = Json::object();
  details["job"] = a.job;
  details["rank"] = a.rank ? Json(*a.rank) : Json(nullptr);
  details["metric"] = a.metric;
  details["window"] = a.window;
  details["value"] = std::isfinite(a.value) ? Json(a.value) : Json(nullptr);
  details["threshold"] = a.threshold;
  details["verdict"] = a.verdict;
  for (const auto& [name, value] : a.annotations)
    details[name] = value;
  Json payload;
  payload["summary"] = truncated(summary.empty() ? alert_headline(a) : a.name + ": " + summary,
                                 kPagerDutySummaryMax);
  payload["source"] = a.job;
  payload["severity"] = pagerduty_severity(a.severity);
  payload["timestamp"] = rfc3339(a.fired_at_ns ? *a.fired_at_ns : a.active_since_ns);
  if (a.rank) payload["component"] = "rank " + std::to_string(*a.rank);
  payload["group"] = a.job;
  payload["class"] = a.metric;
  payload["custom_details"] = std::move(details);
  j["payload"] = std::move(payload);
  j["client"] = "stallwatch";
  if (is_absolute(link)) {
    j["client_url"] = link;
    j["links"] = Json::array({Json{{"href", link}, {"text", "Job in the stallwatch dashboard"}}});
  }
  return dump(j);
}

}  // namespace stallwatch::collector
