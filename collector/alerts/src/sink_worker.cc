// SPDX-License-Identifier: MIT
#include "alerts/sink_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace stallwatch::collector {

SinkWorker::SinkWorker(std::unique_ptr<AlertSink> sink, SinkWorkerOptions options)
    : sink_(std::move(sink)), options_(std::move(options)), limiter_(options_.max_per_minute) {
  stats_.name = options_.name;
  stats_.kind = options_.kind;
  stats_.target = options_.target;
  options_.max_batch = std::max<std::size_t>(1, options_.max_batch);
  options_.max_attempts = std::max(1, options_.max_attempts);
}

SinkWorker::~SinkWorker() {
  stop(std::chrono::milliseconds(0));
}

void SinkWorker::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  next_repeat_ = Clock::now() + options_.repeat_interval;
  thread_ = std::thread([this] { run(); });
}

bool SinkWorker::enqueue(const Alert& alert) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= options_.queue_capacity) {
      ++stats_.dropped_queue_full;
      return false;
    }
    queue_.push_back(alert);
  }
  cv_.notify_one();
  return true;
}

void SinkWorker::stop(std::chrono::milliseconds drain) {
  {
    std::unique_lock lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      cv_.notify_all();
      if (thread_.joinable()) {
        cv_.wait_for(lock, drain, [this] { return queue_.empty(); });
      }
    }
    abort_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  stats_.dropped_retries += queue_.size();
  queue_.clear();
}

SinkStats SinkWorker::stats() const {
  std::lock_guard lock(mutex_);
  SinkStats s = stats_;
  s.queued = queue_.size();
  return s;
}

void SinkWorker::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    bool is_repeat = false;
    std::vector<Alert> batch = take_batch(lock, is_repeat);
    if (batch.empty()) {
      if (abort_ || (stopping_ && queue_.empty())) return;
      continue;
    }
    lock.unlock();
    deliver_with_retries(batch, is_repeat);
    lock.lock();
    cv_.notify_all();  // stop() may be waiting for the queue to drain
  }
}

void SinkWorker::resume(const Alert& alert) {
  std::lock_guard lock(mutex_);
  firing_[alert.id] = alert;
}

std::vector<Alert> SinkWorker::take_batch(std::unique_lock<std::mutex>& lock, bool& is_repeat) {
  const bool repeats = options_.repeat_interval.count() > 0;
  const auto ready = [&] { return abort_ || stopping_ || !queue_.empty(); };
  if (repeats) {
    cv_.wait_until(lock, next_repeat_, ready);
  } else {
    cv_.wait(lock, ready);
  }
  std::vector<Alert> batch;
  if (abort_) return batch;
  const auto now = Clock::now();
  if (!queue_.empty()) {
    const std::int64_t now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    while (!queue_.empty() && batch.size() < options_.max_batch) {
      Alert a = std::move(queue_.front());
      queue_.pop_front();
      if (a.phase == AlertPhase::kResolved) {
        firing_.erase(a.id);
      } else {
        firing_[a.id] = a;
      }
      if (!limiter_.allow(now_ns)) {
        ++stats_.dropped_rate_limited;
        continue;
      }
      batch.push_back(std::move(a));
    }
    return batch;
  }
  if (repeats && now >= next_repeat_ && !stopping_) {
    next_repeat_ = now + options_.repeat_interval;
    for (const auto& [id, alert] : firing_)
      batch.push_back(alert);
    is_repeat = true;
  }
  return batch;
}

void SinkWorker::deliver_with_retries(std::vector<Alert>& batch, bool is_repeat) {
  auto backoff = options_.initial_backoff;
  for (std::size_t offset = 0; offset < batch.size(); offset += options_.max_batch) {
    const std::span<const Alert> part(batch.data() + offset,
                                      std::min(options_.max_batch, batch.size() - offset));
    for (int attempt = 1;; ++attempt) {
      const std::string err = sink_->deliver(part);
      if (err.empty()) {
        std::lock_guard lock(mutex_);
        stats_.sent += part.size();
        if (failing_) spdlog::info("alerts: {} delivers again", options_.name);
        failing_ = false;
        break;
      }
      {
        std::lock_guard lock(mutex_);
        ++stats_.failed_attempts;
      }
      if (!failing_) {
        spdlog::warn("alerts: {} failed to deliver {} alert(s): {}; retrying", options_.name,
                     part.size(), err);
      }
      failing_ = true;
      if (attempt >= options_.max_attempts || !wait_backoff(backoff)) {
        spdlog::warn("alerts: {} gave up on {} {}alert notification(s) after {} attempt(s): {}",
                     options_.name, part.size(), is_repeat ? "repeated " : "", attempt, err);
        std::lock_guard lock(mutex_);
        stats_.dropped_retries += part.size();
        break;
      }
      backoff = std::min(backoff * 2, options_.max_backoff);
    }
  }
}

bool SinkWorker::wait_backoff(std::chrono::milliseconds backoff) {
  std::unique_lock lock(mutex_);
  return !cv_.wait_for(lock, backoff, [this] { return abort_; });
}

}  // namespace stallwatch::collector
