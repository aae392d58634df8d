// SPDX-License-Identifier: MIT
#pragma once

#include "alerts/alert_sink.h"

namespace stallwatch::collector {

// Writes each firing alert as a warning and each resolved one as an info
// line to the daemon's log (spdlog's default logger). Never fails.
class LogSink final : public AlertSink {
 public:
  std::string deliver(std::span<const Alert> alerts) override;
};

}  // namespace stallwatch::collector
