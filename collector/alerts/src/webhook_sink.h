#pragma once

#include <chrono>
#include <string>

#include "alerts/alert_sink.h"
#include "alerts/alerts_config.h"
#include "http_url.h"

namespace stallwatch::collector {

// POSTs the Alertmanager webhook payload (version 4) to a URL: one request
// per alert name in the batch (the payload groups by alertname). Sender
// thread only.
class WebhookSink final : public AlertSink {
 public:
  WebhookSink(const WebhookSinkConfig& config, std::string base_url);
  std::string deliver(std::span<const Alert> alerts) override;

 private:
  HttpUrl url_;
  std::string receiver_;
  AlertLabels headers_;
  std::chrono::milliseconds timeout_;
  std::string base_url_;
};

}  // namespace stallwatch::collector
