// SPDX-License-Identifier: MIT
#pragma once

// Ready-made payloads for the services users page through: a Slack
// incoming-webhook message and a PagerDuty Events API v2 event, one per
// alert. Pure functions of the alert; callable from any thread.

#include <string>
#include <string_view>

#include "alerts/alert.h"

namespace stallwatch::collector {

// A Slack incoming-webhook message: `text` (the one-line summary Slack shows
// in notifications) and `blocks`: a header, the summary annotation, fields
// with the job, rank, metric, value and severity, and a button to the job
// in the dashboard (when `base_url` is an http(s) URL).
std::string slack_body(const Alert& alert, std::string_view base_url);

// A PagerDuty Events API v2 event: `trigger` for a firing alert (summary,
// source, severity, timestamp, component, group, class, custom_details,
// links), `resolve` for a resolved one. Both carry the same dedup_key, so
// that the resolve closes the incident the trigger opened.
std::string pagerduty_body(const Alert& alert, std::string_view routing_key,
                           std::string_view base_url);

// "stallwatch-" + the alert's label fingerprint: stable for the alert across
// re-sends and daemon restarts.
std::string pagerduty_dedup_key(const Alert& alert);

// PagerDuty's severity for the rule's: critical, error, warning or info as
// they are, "page" as critical, anything else as warning.
std::string_view pagerduty_severity(std::string_view severity);

// One line for notifications:
// "[FIRING] <rule>: job <job> rank <rank>: <metric> (<window>) = <value> (threshold <t>)".
std::string alert_headline(const Alert& alert);

}  // namespace stallwatch::collector
