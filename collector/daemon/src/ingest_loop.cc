// SPDX-License-Identifier: MIT
#include "ingest_loop.h"

#include <pthread.h>
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
    : host_(host),
      decoder_(host.names(), &host.mutex()),
      preparer_(host.engine().make_preparer(&host.mutex())),
      journal_(std::move(journal)) {}

IngestLoop::~IngestLoop() {
  stop();
}

std::string IngestLoop::bind(const std::vector<std::string>& endpoints) {
  for (const auto& endpoint : endpoints) {
    if (auto error = receiver_.bind(endpoint)) return *error;
  }
  return {};
}

std::string IngestLoop::bind_curve(const CurveServerKeys& keys,
                                   const std::vector<std::string>& endpoints) {
  if (endpoints.empty()) return {};
  if (auto error = receiver_.enable_curve(keys)) return "CURVE endpoints: " + *error;
  for (const auto& endpoint : endpoints) {
    if (auto error = receiver_.bind_curve(endpoint)) return *error;
  }
  return {};
}

void IngestLoop::start() {
  running_ = true;
  closing_ = false;
  apply_thread_ = std::thread([this] { apply_loop(); });
  receive_thread_ = std::thread([this] { receive_loop(); });
}

void IngestLoop::stop() {
  running_ = false;
  if (receive_thread_.joinable()) receive_thread_.join();
  if (apply_thread_.joinable()) apply_thread_.join();
  if (journal_) journal_->flush();
}

JournalStatus IngestLoop::journal_status() const {
  std::lock_guard lock(journal_status_mutex_);
  return journal_status_;
}

void IngestLoop::tend_journal(std::int64_t now_ns) {
  // Each round's frames reach the OS before the next round: a crash loses
  // only frames not yet taken off the sockets (sequence gaps on restart).
  journal_->flush();
  journal_->maintain(now_ns);
  if (!journal_->ok() && !journal_failing_) {
    spdlog::error("journal: cannot write, live metrics go on and unwritten batches are counted: {}",
                  journal_->last_error());
    journal_failing_ = true;
  } else if (journal_->ok() && journal_failing_) {
    spdlog::warn("journal: writing again; {} batches were not written ({})",
                 journal_->records_unwritten(), journal_->last_error());
    journal_failing_ = false;
  }
  std::lock_guard lock(journal_status_mutex_);
  journal_status_.enabled = true;
  journal_status_.writing = journal_->ok();
  if (journal_status_.error != journal_->last_error())
    journal_status_.error = journal_->last_error();
  journal_status_.records_written = journal_->records_written();
  journal_status_.records_unwritten = journal_->records_unwritten();
  journal_status_.bytes_written = journal_->bytes_written();
}

std::int64_t IngestLoop::take_max_lag_ns() {
  return max_lag_ns_.exchange(0);
}

void IngestLoop::receive_loop() {
  pthread_setname_np(pthread_self(), "ingest-receive");
  while (running_) {
    try {
      receiver_.receive(100, [this](std::span<const std::uint8_t> frame) { on_frame(frame); });
    } catch (const std::exception& e) {
      // One bad frame must never stop ingest: log it in words and carry on.
      spdlog::error("ingest: dropped a frame after an internal error: {}", e.what());
    }
    accepted_.store(receiver_.stats().connections_accepted, std::memory_order_relaxed);
    closed_.store(receiver_.stats().connections_closed, std::memory_order_relaxed);
    for (std::size_t r = 0; r < kHandshakeRejectionCount; ++r) {
      rejected_[r].store(receiver_.stats().rejected[r], std::memory_order_relaxed);
    }
    const std::int64_t now = collector_now_ns();
    log_rejections(now);
    log_refused_connections(now);
    if (journal_) tend_journal(now);
  }
  {
    std::lock_guard lock(queue_mutex_);
    closing_ = true;
  }
  not_empty_.notify_one();
}

void IngestLoop::on_frame(std::span<const std::uint8_t> frame) {
  const std::int64_t now = collector_now_ns();
  std::size_t index = 0;
  {
    std::unique_lock lock(queue_mutex_);
    not_full_.wait(lock, [this] { return queued_ < kQueueSlots; });
    index = (head_ + queued_) % kQueueSlots;
  }
  // The slot past the queued ones is this thread's until it is queued.
  Slot& slot = slots_[index];
  // Decoded and prepared in one pass over the events: the batch keeps only
  // those the engine walks one by one.
  const auto error = decoder_.decode_prepared(frame, preparer_, slot.batch, slot.prepared);
  slot.valid = !error;
  slot.received_ns = now;
  slot.stats = decoder_.stats();
  {
    std::lock_guard lock(queue_mutex_);
    ++queued_;
  }
  not_empty_.notify_one();
  if (error) {
    ++rejected_since_log_;
    last_rejection_ = std::string(frame_error_reason_name(error->reason)) + ": " + error->detail;
    return;
  }
  const std::int64_t lag = now - slot.batch.sent_at_ns;
  std::int64_t seen = max_lag_ns_.load(std::memory_order_relaxed);
  while (lag > seen && !max_lag_ns_.compare_exchange_weak(seen, lag)) {
  }
  if (journal_) journal_->append(frame, now);
}

void IngestLoop::apply_loop() {
  pthread_setname_np(pthread_self(), "ingest-apply");
  while (true) {
    std::size_t first = 0;
    std::size_t count = 0;
    {
      std::unique_lock lock(queue_mutex_);
      not_empty_.wait(lock, [this] { return queued_ > 0 || closing_; });
      if (queued_ == 0) return;  // the receive thread has ended and all is applied
      first = head_;
      count = queued_;
    }
    // Everything waiting under one hold of the engine's lock; each slot goes
    // back to the receive thread as soon as it is applied, so decoding the
    // next frame overlaps with applying the rest.
    std::lock_guard engine_lock(host_.mutex());
    for (std::size_t i = 0; i < count; ++i) {
      Slot& slot = slots_[(first + i) % kQueueSlots];
      if (slot.valid) {
        try {
          host_.engine().ingest(slot.batch, slot.received_ns, &slot.prepared);
        } catch (const std::exception& e) {
          spdlog::error("ingest: dropped a batch after an internal error: {}", e.what());
        }
      }
      published_stats_ = slot.stats;
      {
        std::lock_guard lock(queue_mutex_);
        head_ = (head_ + 1) % kQueueSlots;
        --queued_;
      }
      not_full_.notify_one();
    }
  }
}

void IngestLoop::log_rejections(std::int64_t now_ns) {
  if (rejected_since_log_ == 0 || now_ns - last_log_ns_ < 1'000'000'000) return;
  spdlog::warn("ingest: rejected {} invalid frame{} (last: {})", rejected_since_log_,
               rejected_since_log_ == 1 ? "" : "s", last_rejection_);
  rejected_since_log_ = 0;
  last_log_ns_ = now_ns;
}

}  // namespace stallwatch::collector

namespace stallwatch::collector {

void IngestLoop::log_refused_connections(std::int64_t now_ns) {
  std::uint64_t total = 0;
  for (std::uint64_t count : receiver_.stats().rejected)
    total += count;
  const std::string& last = receiver_.last_refused_client();
  // A key refused for the first time is logged at once, repeats at most every 10 s.
  const bool new_key = last != last_refused_key_logged_;
  if (total == refused_logged_ || (!new_key && now_ns - last_refused_log_ns_ < 10'000'000'000)) {
    return;
  }
  std::string reasons;
  for (std::size_t r = 0; r < kHandshakeRejectionCount; ++r) {
    if (receiver_.stats().rejected[r] == 0) continue;
    if (!reasons.empty()) reasons += ", ";
    reasons += std::string(handshake_rejection_name(static_cast<HandshakeRejection>(r))) + " " +
               std::to_string(receiver_.stats().rejected[r]);
  }
  spdlog::warn("ingest: refused {} connection{} in the ZeroMQ handshake so far ({}){}{}", total,
               total == 1 ? "" : "s", reasons, last.empty() ? "" : "; last key refused: ", last);
  refused_logged_ = total;
  last_refused_log_ns_ = now_ns;
  last_refused_key_logged_ = last;
}

}  // namespace stallwatch::collector
