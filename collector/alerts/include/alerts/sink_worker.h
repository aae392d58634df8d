// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "alerts/alert.h"
#include "alerts/alert_sink.h"
#include "alerts/rate_limiter.h"
#include "alerts/sink_stats.h"

namespace stallwatch::collector {

struct SinkWorkerOptions {
  std::string name;  // for stats and the log
  std::string kind;
  std::string target;
  std::size_t queue_capacity = 1024;
  std::size_t max_batch = 64;                      // notifications per deliver() call
  int max_attempts = 5;                            // per batch, including the first
  std::chrono::milliseconds initial_backoff{500};  // doubled per retry
  std::chrono::milliseconds max_backoff{30'000};
  // Re-deliver every alert still firing this often (0: never); the sink is
  // handed the firing set as one more batch.
  std::chrono::milliseconds repeat_interval{0};
  double max_per_minute = 0;  // rate limit on notifications (not repeats); 0: none
};

// Puts one AlertSink behind a bounded queue and its own sender thread, so
// that neither the tick thread nor the other sinks ever wait for it.
//
// enqueue() is called by the tick thread and only takes a short lock; a full
// queue drops the notification and counts it. The sender thread batches
// what is queued, retries failed batches with exponential backoff up to
// max_attempts, applies the rate limit, and re-delivers the firing set every
// repeat_interval. stop() drains for a bounded time, then abandons the rest.
// Failures are counted in stats() and logged once per outage, not per try.
class SinkWorker {
 public:
  SinkWorker(std::unique_ptr<AlertSink> sink, SinkWorkerOptions options);
  ~SinkWorker();
  SinkWorker(const SinkWorker&) = delete;
  SinkWorker& operator=(const SinkWorker&) = delete;

  void start();
  // False when the queue was full (the notification is dropped and counted).
  bool enqueue(const Alert& alert);
  // An alert that resumed firing after a restart: not notified now, only
  // re-delivered with the firing set every repeat_interval.
  void resume(const Alert& alert);
  // Waits up to `drain` for queued notifications to go out, then stops.
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(2000));

  SinkStats stats() const;

 private:
  using Clock = std::chrono::steady_clock;

  void run();
  // Takes the next batch under the lock; empty when there is nothing to do.
  std::vector<Alert> take_batch(std::unique_lock<std::mutex>& lock, bool& is_repeat);
  void deliver_with_retries(std::vector<Alert>& batch, bool is_repeat);
  bool wait_backoff(std::chrono::milliseconds backoff);  // false when aborted

  std::unique_ptr<AlertSink> sink_;
  SinkWorkerOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Alert> queue_;
  std::map<std::string, Alert> firing_;  // by id; sender thread's view
  Clock::time_point next_repeat_;
  RateLimiter limiter_;
  SinkStats stats_;
  bool stopping_ = false;
  bool abort_ = false;
  bool failing_ = false;  // sender thread only
  std::thread thread_;
};

}  // namespace stallwatch::collector
