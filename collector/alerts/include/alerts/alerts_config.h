// SPDX-License-Identifier: MIT
#pragma once

// Everything `[alerts]` in stallwatchd.toml configures: the rules and where
// notifications go. Plain values; loaded by alerts_config_toml.h, checked by
// validate() once the engine's windows are known.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "alerts/alert_rule.h"
#include "http_client/http_client.h"

namespace stallwatch::collector {

inline constexpr std::int64_t kAlertSecond = 1'000'000'000;

// Delivery settings every sink has.
struct SinkDelivery {
  std::string name;          // unique among sinks; default: the kind, "-2"... when repeated
  std::size_t queue = 1024;  // notifications waiting; more are dropped and counted
  int max_attempts = 5;      // per notification batch, including the first
  std::int64_t timeout_ns = 5 * kAlertSecond;
  double max_per_minute = 0;  // rate limit per notification; 0 = none
};

// POST /api/v2/alerts of an Alertmanager; firing alerts are re-sent every
// `resend_interval` with endsAt = now + 4 x resend_interval, resolved ones
// once with their endsAt.
struct AlertmanagerSinkConfig {
  std::string url;  // base URL, e.g. "http://127.0.0.1:9093" or "https://am.example"
  std::int64_t resend_interval_ns = 60 * kAlertSecond;
  TlsOptions tls;  // ca_file, client_cert, client_key
  SinkDelivery delivery;
};

// What a webhook sends: the Alertmanager webhook payload (version 4), a
// Slack incoming-webhook message, or a PagerDuty Events API v2 event.
enum class WebhookFormat { kGeneric, kSlack, kPagerDuty };

// POST of one of the WebhookFormat payloads to any URL.
struct WebhookSinkConfig {
  std::string url;
  WebhookFormat format = WebhookFormat::kGeneric;
  std::string receiver = "stallwatch";
  std::string routing_key;              // PagerDuty's integration key; format = pagerduty only
  TlsOptions tls;                       // ca_file, client_cert, client_key
  AlertLabels headers;                  // extra request headers, e.g. Authorization
  std::int64_t repeat_interval_ns = 0;  // re-send firing alerts; 0 = only on transitions
  SinkDelivery delivery;
};

// Runs `command` (argv; no shell unless argv[0] is one) once per firing and
// once per resolved notification, with the alert in STALLWATCH_ALERT_*
// environment variables; killed after the timeout.
struct ExecSinkConfig {
  std::vector<std::string> command;
  SinkDelivery delivery;
};

struct AlertsConfig {
  bool defaults = true;  // run default_alert_rules() when `rules` is empty
  bool log = true;       // log every firing and resolved alert
  std::vector<AlertRule> rules;
  // Base of generatorURL/externalURL links; empty: http://<http listen address>.
  std::string external_url;
  std::int64_t resolved_retention_ns = 3600 * kAlertSecond;
  std::vector<AlertmanagerSinkConfig> alertmanagers;
  std::vector<WebhookSinkConfig> webhooks;
  std::vector<ExecSinkConfig> execs;

  // The rules to run: `rules`, or the defaults when empty and enabled. A
  // default rule whose window is not among `windows_ns` (the engine's, without
  // the totals) is left out and its name added to `skipped`.
  std::vector<AlertRule> effective_rules(const std::vector<std::int64_t>& windows_ns,
                                         std::vector<std::string>* skipped = nullptr) const;
};

// Cross-checks the configured rules against the engine's windows (without
// the totals) and the sinks' names. Returns "" or what is wrong.
std::string validate(const AlertsConfig& config, const std::vector<std::int64_t>& windows_ns);

}  // namespace stallwatch::collector
