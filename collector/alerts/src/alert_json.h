// SPDX-License-Identifier: MIT
#pragma once

// The JSON the sinks send: Alertmanager's API v2 alert list (POST
// /api/v2/alerts) and its webhook payload (version 4). Pure functions of the
// alerts and of `now_ns` (Unix epoch ns); callable from any thread.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "alerts/alert.h"

namespace stallwatch::collector {

// "2024-05-01T12:00:00.123Z" (UTC, milliseconds).
std::string rfc3339(std::int64_t unix_ns);

// Prometheus' label-set fingerprint (FNV-1a 64 over sorted name/value pairs),
// as 16 hex digits: what Alertmanager shows as the alert's fingerprint.
std::string alert_fingerprint(const AlertLabels& sorted_labels);

// A link to the job in the dashboard: <base>/#/jobs/<job>?rank=N&window=W.
std::string generator_url(std::string_view base_url, const Alert& alert);

// `[{"labels", "annotations", "startsAt", "endsAt", "generatorURL"}, ...]`.
// Firing alerts end at now + `valid_for_ns` (Alertmanager resolves them by
// itself if they are not re-sent); resolved ones at their resolution time.
std::string alertmanager_body(std::span<const Alert> alerts, std::int64_t now_ns,
                              std::int64_t valid_for_ns, std::string_view base_url);

// The webhook payload version 4 for one group of alerts (all with the same
// alertname): version, groupKey, truncatedAlerts, status, receiver,
// groupLabels, commonLabels, commonAnnotations, externalURL, alerts[] with
// status, labels, annotations, startsAt, endsAt ("0001-01-01T00:00:00Z"
// while firing), generatorURL and fingerprint.
std::string webhook_body(std::span<const Alert> alerts, std::string_view receiver,
                         std::string_view base_url);

// One alert as a JSON object (the webhook's alert shape plus id, job, rank,
// value, threshold, metric, window and verdict) for the exec sink.
std::string alert_json(const Alert& alert, std::string_view base_url);

}  // namespace stallwatch::collector
