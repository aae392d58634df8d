// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "alerts/alert_sink.h"
#include "alerts/alerts_config.h"
#include "batch_progress.h"

namespace stallwatch::collector {

// Runs the configured program once per notification, argv as configured (no
// shell: a user who wants one configures ["sh", "-c", "..."]), with the
// daemon's environment plus:
//   STALLWATCH_ALERT_ID, _NAME, _STATUS (firing|resolved), _SEVERITY, _JOB,
//   _RANK (empty for job scope), _SCOPE, _METRIC, _WINDOW, _VALUE,
//   _THRESHOLD, _VERDICT, _STARTS_AT, _ENDS_AT (RFC 3339; empty while
//   firing), _URL (dashboard link), _SUMMARY, _DESCRIPTION, _JSON (the whole
//   alert), and STALLWATCH_ALERT_LABEL_<NAME> / _ANNOTATION_<NAME> for the
//   rule's labels and annotations (upper-cased).
// stdin is /dev/null; stdout and stderr go to the daemon's. A run that
// exceeds the timeout gets SIGTERM, then SIGKILL 1 s later, with its whole
// process group. A non-zero exit is a failure; the worker's retry of the
// batch runs only the commands that did not succeed. Sender thread only.
class ExecSink final : public AlertSink {
 public:
  ExecSink(const ExecSinkConfig& config, std::string base_url);
  std::string deliver(std::span<const Alert> alerts) override;

  // The environment additions for one alert, "NAME=value" (exposed for tests).
  static std::vector<std::string> alert_environment(const Alert& alert, std::string_view base_url);

 private:
  std::string run(const Alert& alert);

  std::vector<std::string> command_;
  std::chrono::milliseconds timeout_;
  std::string base_url_;
  BatchProgress progress_;
};

}  // namespace stallwatch::collector
