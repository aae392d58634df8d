#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/engine_host.h"
#include "app/journal.h"
#include "ingest/batch_decoder.h"
#include "ingest/decoded_batch.h"
#include "ingest/ingest_stats.h"
#include "ingest/receiver.h"

namespace stallwatch::collector {

// stallwatchd's ingest thread: receives frames on the ZeroMQ endpoints,
// decodes and validates them and applies each valid batch to the engine under
// the EngineHost mutex; optionally appends valid frames to the journal.
// Invalid frames are counted by reason and logged at most once per second.
//
// bind() runs on the constructing thread before start(); after start() the
// Receiver, decoder and journal belong to the ingest thread. stats() is read
// by the tick thread with the EngineHost mutex held (the decoder updates its
// counters under that mutex).
class IngestLoop {
 public:
  IngestLoop(EngineHost& host, std::unique_ptr<JournalWriter> journal);
  ~IngestLoop();
  IngestLoop(const IngestLoop&) = delete;
  IngestLoop& operator=(const IngestLoop&) = delete;

  // Returns "" or "<endpoint>: <reason>" for the first endpoint that fails.
  std::string bind(const std::vector<std::string>& endpoints);
  const std::vector<std::string>& endpoints() const { return receiver_.endpoints(); }

  void start();
  void stop();

  // With the EngineHost mutex held.
  const IngestStats& stats() const { return decoder_.stats(); }
  // Largest (collector now - sent_at) seen since the last call, in ns.
  std::int64_t take_max_lag_ns();
  // Connection events of the ingest sockets; any thread.
  std::uint64_t connections_accepted() const { return accepted_.load(std::memory_order_relaxed); }
  std::uint64_t connections_closed() const { return closed_.load(std::memory_order_relaxed); }

 private:
  void run();
  void on_frame(std::span<const std::uint8_t> frame);
  void log_rejections(std::int64_t now_ns);

  EngineHost& host_;
  Receiver receiver_;
  BatchDecoder decoder_;
  DecodedBatch batch_;
  std::unique_ptr<JournalWriter> journal_;
  std::atomic<bool> running_{false};
  std::atomic<std::int64_t> max_lag_ns_{0};
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> closed_{0};
  std::thread thread_;
  // Rate-limited logging of invalid frames (ingest thread only).
  std::uint64_t rejected_since_log_ = 0;
  std::string last_rejection_;
  std::int64_t last_log_ns_ = 0;
  bool journal_error_logged_ = false;
};

// Unix epoch nanoseconds from the system clock: the collector's clock.
std::int64_t collector_now_ns();

}  // namespace stallwatch::collector
