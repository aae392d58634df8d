// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <string>

#include "alerts/alert_sink.h"
#include "alerts/alerts_config.h"
#include "http_client/http_url.h"

namespace stallwatch::collector {

// POSTs alerts to an Alertmanager's `/api/v2/alerts` (under the configured
// base URL, http or https, verified). Firing alerts carry endsAt = now + 4 x
// resend_interval, so that Alertmanager resolves them by itself if
// stallwatchd stops re-sending them; resolved ones carry their resolution
// time. Sender thread only.
class AlertmanagerSink final : public AlertSink {
 public:
  AlertmanagerSink(const AlertmanagerSinkConfig& config, std::string base_url);
  std::string deliver(std::span<const Alert> alerts) override;

 private:
  HttpUrl url_;
  std::string endpoint_;  // the base URL's path + /api/v2/alerts
  TlsOptions tls_;
  std::int64_t valid_for_ns_;
  std::chrono::milliseconds timeout_;
  std::string base_url_;
};

}  // namespace stallwatch::collector
