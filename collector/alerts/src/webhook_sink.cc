#include "webhook_sink.h"

#include <map>
#include <vector>

#include "alert_json.h"
#include "http_client.h"

namespace stallwatch::collector {

WebhookSink::WebhookSink(const WebhookSinkConfig& config, std::string base_url)
    : url_(parse_http_url(config.url)),
      receiver_(config.receiver),
      headers_(config.headers),
      timeout_(config.delivery.timeout_ns / 1'000'000),
      base_url_(std::move(base_url)) {}

std::string WebhookSink::deliver(std::span<const Alert> alerts) {
  if (!url_.error.empty()) return url_.error;
  std::map<std::string, std::vector<Alert>> groups;
  for (const Alert& a : alerts)
    groups[a.name].push_back(a);
  for (const auto& [name, group] : groups) {
    auto result = http_post(url_, "application/json", webhook_body(group, receiver_, base_url_),
                            headers_, timeout_);
    if (!result.error.empty()) return result.error;
  }
  return {};
}

}  // namespace stallwatch::collector
