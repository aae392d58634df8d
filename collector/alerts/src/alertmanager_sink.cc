// SPDX-License-Identifier: MIT
#include "alertmanager_sink.h"

#include "alert_json.h"
#include "json_post.h"

namespace stallwatch::collector {

AlertmanagerSink::AlertmanagerSink(const AlertmanagerSinkConfig& config, std::string base_url)
    : url_(parse_http_url(config.url)),
      endpoint_(url_.with_path("/api/v2/alerts")),
      tls_(config.tls),
      valid_for_ns_(4 * config.resend_interval_ns),
      timeout_(config.delivery.timeout_ns / 1'000'000),
      base_url_(std::move(base_url)) {}

std::string AlertmanagerSink::deliver(std::span<const Alert> alerts) {
  if (!url_.ok()) return url_.error;
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  return post_json(endpoint_, alertmanager_body(alerts, now_ns, valid_for_ns_, base_url_), {}, tls_,
                   timeout_);
}

}  // namespace stallwatch::collector
