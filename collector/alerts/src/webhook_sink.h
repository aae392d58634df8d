// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <string>

#include "alerts/alert_sink.h"
#include "alerts/alerts_config.h"
#include "batch_progress.h"
#include "http_client/http_url.h"

namespace stallwatch::collector {

// POSTs the configured WebhookFormat to a URL (http or https, verified):
// the generic Alertmanager webhook payload (version 4), one request per
// alert name in the batch; or a Slack message or PagerDuty event, one
// request per alert. A failed request fails the batch; the worker's retry
// sends only the requests that did not go through. Sender thread only.
class WebhookSink final : public AlertSink {
 public:
  WebhookSink(const WebhookSinkConfig& config, std::string base_url);
  std::string deliver(std::span<const Alert> alerts) override;

 private:
  std::string post(std::string body) const;

  HttpUrl url_;
  WebhookSinkConfig config_;
  std::chrono::milliseconds timeout_;
  std::string base_url_;
  BatchProgress progress_;
};

}  // namespace stallwatch::collector
