#include "app/ingest_loop.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>

namespace stallwatch::collector {

std::int64_t collector_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

IngestLoop::IngestLoop(EngineHost& host, std::unique_ptr<JournalWriter> journal)
    : host_(host), decoder_(host.names()), journal_(std::move(journal)) {}

IngestLoop::~IngestLoop() { stop(); }

std::string IngestLoop::bind(const std::vector<std::string>& endpoints) {
  for (const auto& endpoint : endpoints) {
    if (auto error = receiver_.bind(endpoint)) return *error;
  }
  return {};
}

void IngestLoop::start() {
  running_ = true;
  thread_ = std::thread([this] { run(); });
}

void IngestLoop::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  if (journal_) journal_->flush();
}

std::int64_t IngestLoop::take_max_lag_ns() { return max_lag_ns_.exchange(0); }

void IngestLoop::run() {
  std::int64_t last_flush_ns = collector_now_ns();
  while (running_) {
    try {
      receiver_.receive(100, [this](std::span<const std::uint8_t> frame) { on_frame(frame); });
    } catch (const std::exception& e) {
      // One bad frame must never stop ingest: log it in words and carry on.
      spdlog::error("ingest: dropped a frame after an internal error: {}", e.what());
    }
    accepted_.store(receiver_.stats().connections_accepted, std::memory_order_relaxed);
    closed_.store(receiver_.stats().connections_closed, std::memory_order_relaxed);
    const std::int64_t now = collector_now_ns();
    log_rejections(now);
    if (journal_ && now - last_flush_ns >= 500'000'000) {
      journal_->flush();
      last_flush_ns = now;
      if (!journal_->ok() && !journal_error_logged_) {
        spdlog::error("journal disabled: {}", journal_->last_error());
        journal_error_logged_ = true;
      }
    }
  }
}

void IngestLoop::on_frame(std::span<const std::uint8_t> frame) {
  const std::int64_t now = collector_now_ns();
  {
    std::lock_guard lock(host_.mutex());
    if (auto error = decoder_.decode(frame, batch_)) {
      ++rejected_since_log_;
      last_rejection_ = std::string(frame_error_reason_name(error->reason)) + ": " + error->detail;
      return;
    }
    host_.engine().ingest(batch_, now);
  }
  const std::int64_t lag = now - batch_.sent_at_ns;
  std::int64_t seen = max_lag_ns_.load(std::memory_order_relaxed);
  while (lag > seen && !max_lag_ns_.compare_exchange_weak(seen, lag)) {
  }
  if (journal_) journal_->append(frame, now);
}

void IngestLoop::log_rejections(std::int64_t now_ns) {
  if (rejected_since_log_ == 0 || now_ns - last_log_ns_ < 1'000'000'000) return;
  spdlog::warn("ingest: rejected {} invalid frame{} (last: {})", rejected_since_log_,
               rejected_since_log_ == 1 ? "" : "s", last_rejection_);
  rejected_since_log_ = 0;
  last_log_ns_ = now_ns;
}

}  // namespace stallwatch::collector
