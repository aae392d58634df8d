// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace stallwatch::collector {

// One sink's delivery counters, for /api/v1/status and /metrics. Counts are
// notifications (one alert firing or resolving), not requests.
struct SinkStats {
  std::string name;                        // unique: "log", "alertmanager", "webhook-2", ...
  std::string kind;                        // "log", "alertmanager", "webhook", "exec"
  std::string target;                      // URL or program; empty for log
  std::uint64_t sent = 0;                  // delivered (re-sends of firing alerts included)
  std::uint64_t failed_attempts = 0;       // deliveries that failed (each retry counts)
  std::uint64_t dropped_queue_full = 0;    // not queued: the queue was full
  std::uint64_t dropped_retries = 0;       // given up after max_attempts
  std::uint64_t dropped_rate_limited = 0;  // over max_per_minute
  std::uint64_t queued = 0;                // waiting now
};

}  // namespace stallwatch::collector
