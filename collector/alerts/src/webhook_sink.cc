// SPDX-License-Identifier: MIT
#include "webhook_sink.h"

#include <map>
#include <vector>

#include "alert_json.h"
#include "json_post.h"
#include "service_payloads.h"

namespace stallwatch::collector {

WebhookSink::WebhookSink(const WebhookSinkConfig& config, std::string base_url)
    : url_(parse_http_url(config.url)),
      config_(config),
      timeout_(config.delivery.timeout_ns / 1'000'000),
      base_url_(std::move(base_url)) {}

std::string WebhookSink::post(std::string body) const {
  return post_json(url_.text(), std::move(body), config_.headers, config_.tls, timeout_);
}

std::string WebhookSink::deliver(std::span<const Alert> alerts) {
  if (!url_.ok()) return url_.error;
  std::vector<std::string> bodies;
  if (config_.format == WebhookFormat::kGeneric) {
    std::map<std::string, std::vector<Alert>> groups;
    for (const Alert& a : alerts)
      groups[a.name].push_back(a);
    for (const auto& [name, group] : groups)
      bodies.push_back(webhook_body(group, config_.receiver, base_url_));
  } else {
    for (const Alert& a : alerts) {
      bodies.push_back(config_.format == WebhookFormat::kSlack
                           ? slack_body(a, base_url_)
                           : pagerduty_body(a, config_.routing_key, base_url_));
    }
  }
  progress_.begin(bodies);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (progress_.delivered(i)) continue;
    if (auto err = post(std::move(bodies[i])); !err.empty()) return err;
    progress_.mark_delivered(i);
  }
  progress_.finish();
  return {};
}

}  // namespace stallwatch::collector
