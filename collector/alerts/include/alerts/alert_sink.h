// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string>

#include "alerts/alert.h"

namespace stallwatch::collector {

// One place notifications go (log, Alertmanager, webhook, exec). deliver()
// is called only from the sink's own sender thread (SinkWorker), so it may
// block up to its timeout; it must not throw. The worker owns the sink.
class AlertSink {
 public:
  virtual ~AlertSink() = default;

  // Delivers firing and/or resolved alerts. Returns "" on success, else what
  // failed, in words for the log. The worker retries the same batch; a sink
  // that makes several requests per batch sends only those that failed.
  virtual std::string deliver(std::span<const Alert> alerts) = 0;
};

}  // namespace stallwatch::collector
