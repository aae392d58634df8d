// SPDX-License-Identifier: MIT
#include "alert_json.h"

#include <time.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace stallwatch::collector {
namespace {

using Json = nlohmann::ordered_json;

// Alertmanager's "zero time": what its webhook sends as endsAt while firing.
constexpr std::string_view kZeroTime = "0001-01-01T00:00:00Z";

Json labels_json(const AlertLabels& labels) {
  Json out = Json::object();
  for (const auto& [name, value] : labels)
    out[name] = value;
  return out;
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string_view status_of(const Alert& a) {
  return a.phase == AlertPhase::kResolved ? "resolved" : "firing";
}

Json webhook_alert(const Alert& a, std::string_view base_url) {
  const AlertLabels labels = identity_labels(a);
  Json j;
  j["status"] = status_of(a);
  j["labels"] = labels_json(labels);
  j["annotations"] = labels_json(a.annotations);
  j["startsAt"] = rfc3339(a.active_since_ns);
  j["endsAt"] = a.resolved_at_ns ? rfc3339(*a.resolved_at_ns) : std::string(kZeroTime);
  j["generatorURL"] = generator_url(base_url, a);
  j["fingerprint"] = alert_fingerprint(labels);
  return j;
}

// Pairs present with the same value in every set.
AlertLabels common_pairs(std::span<const AlertLabels> sets) {
  if (sets.empty()) return {};
  AlertLabels out;
  for (const auto& pair : sets.front()) {
    bool everywhere = true;
    for (const auto& s : sets.subspan(1)) {
      bool found = false;
      for (const auto& p : s)
        found = found || p == pair;
      everywhere = everywhere && found;
    }
    if (everywhere) out.push_back(pair);
  }
  return out;
}

}  // namespace

std::string rfc3339(std::int64_t unix_ns) {
  std::int64_t seconds = unix_ns / 1'000'000'000;
  std::int64_t rem = unix_ns % 1'000'000'000;
  if (rem < 0) {
    rem += 1'000'000'000;
    --seconds;
  }
  const time_t t = static_cast<time_t>(seconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(rem / 1'000'000));
  return buf;
}

std::string alert_fingerprint(const AlertLabels& sorted_labels) {
  std::uint64_t h = 14695981039346656037ull;
  const auto add = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  const auto add_separator = [&h] {
    h ^= 0xffu;
    h *= 1099511628211ull;
  };
  for (const auto& [name, value] : sorted_labels) {
    add(name);
    add_separator();
    add(value);
    add_separator();
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string generator_url(std::string_view base_url, const Alert& alert) {
  std::string out(base_url);
  out += "/#/jobs/" + percent_encode(alert.job);
  std::string query;
  if (alert.rank) query += "rank=" + std::to_string(*alert.rank);
  if (!alert.window.empty())
    query += (query.empty() ? "" : "&") + std::string("window=") + alert.window;
  if (!query.empty()) out += "?" + query;
  return out;
}

std::string alertmanager_body(std::span<const Alert> alerts, std::int64_t now_ns,
                              std::int64_t valid_for_ns, std::string_view base_url) {
  Json out = Json::array();
  for (const Alert& a : alerts) {
    Json j;
    j["labels"] = labels_json(identity_labels(a));
    j["annotations"] = labels_json(a.annotations);
    j["startsAt"] = rfc3339(a.active_since_ns);
    j["endsAt"] = rfc3339(a.resolved_at_ns ? *a.resolved_at_ns : now_ns + valid_for_ns);
    j["generatorURL"] = generator_url(base_url, a);
    out.push_back(std::move(j));
  }
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string webhook_body(std::span<const Alert> alerts, std::string_view receiver,
                         std::string_view base_url) {
  std::vector<AlertLabels> label_sets;
  std::vector<AlertLabels> annotation_sets;
  bool firing = false;
  Json list = Json::array();
  for (const Alert& a : alerts) {
    label_sets.push_back(identity_labels(a));
    annotation_sets.push_back(a.annotations);
    firing = firing || a.phase != AlertPhase::kResolved;
    list.push_back(webhook_alert(a, base_url));
  }
  const std::string alertname = alerts.empty() ? std::string() : alerts.front().name;
  Json j;
  j["version"] = "4";
  j["groupKey"] = "{}:{alertname=\"" + alertname + "\"}";
  j["truncatedAlerts"] = 0;
  j["status"] = firing ? "firing" : "resolved";
  j["receiver"] = receiver;
  j["groupLabels"] = labels_json({{"alertname", alertname}});
  j["commonLabels"] = labels_json(common_pairs(label_sets));
  j["commonAnnotations"] = labels_json(common_pairs(annotation_sets));
  j["externalURL"] = base_url;
  j["alerts"] = std::move(list);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string alert_json(const Alert& alert, std::string_view base_url) {
  Json j = webhook_alert(alert, base_url);
  j["id"] = alert.id;
  j["job"] = alert.job;
  j["rank"] = alert.rank ? Json(*alert.rank) : Json(nullptr);
  j["metric"] = alert.metric;
  j["window"] = alert.window;
  j["value"] = std::isfinite(alert.value) ? Json(alert.value) : Json(nullptr);
  j["threshold"] = alert.threshold;
  j["verdict"] = alert.verdict;
  j["cause"] = alert.cause;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace stallwatch::collector
