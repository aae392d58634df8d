// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/decoded_batch.h"
#include "engine_host.h"
#include "ingest/batch_decoder.h"
#include "ingest/ingest_stats.h"
#include "ingest/receiver.h"
#include "journal.h"
#include "serve/published_state.h"

namespace stallwatch::collector {

// stallwatchd's ingest pipeline, two threads:
//   receive ("ingest-receive")  takes frames off the ZeroMQ endpoints, validates
//                           each one and decodes its header (names interned
//                           through the decoder's private cache, the
//                           EngineHost mutex taken only for a new name),
//                           then decodes and prepares its events for the
//                           engine in one pass (BatchDecoder::decode_prepared:
//                           the union of its regions, their timeline block,
//                           and only the other events copied), appends valid
//                           frames to the journal and queues the batch;
//   apply ("ingest-apply")  applies queued batches to the engine, all that
//                           are waiting under one hold of the EngineHost mutex.
// The queue holds kQueueSlots decoded batches. When it is full the receive
// thread waits, ZeroMQ's receive queues fill up, and the agents' sends see
// back-pressure: nothing is dropped here. Batches from one source stay in
// order. Invalid frames are counted by reason and logged at most once per
// second.
//
// bind() and bind_curve() run on the constructing thread before start().
// Connections refused in the CURVE handshake are counted by reason and
// logged (a newly refused key at once, repeats at most every 10 s). stop()
// lets the apply thread finish what was queued.
class IngestLoop {
 public:
  static constexpr std::size_t kQueueSlots = 4;

  IngestLoop(EngineHost& host, std::unique_ptr<JournalWriter> journal);
  ~IngestLoop();
  IngestLoop(const IngestLoop&) = delete;
  IngestLoop& operator=(const IngestLoop&) = delete;

  // Returns "" or "<endpoint>: <reason>" for the first endpoint that fails.
  std::string bind(const std::vector<std::string>& endpoints);
  // Sets up CURVE with `keys` and binds `endpoints` with it; as bind().
  std::string bind_curve(const CurveServerKeys& keys, const std::vector<std::string>& endpoints);
  const std::vector<std::string>& endpoints() const { return receiver_.endpoints(); }
  const std::vector<std::string>& curve_endpoints() const { return receiver_.curve_endpoints(); }

  void start();
  void stop();

  // With the EngineHost mutex held. Counts every frame up to the last batch
  // applied and every invalid frame so far, so events_received never runs
  // ahead of what the engine has seen.
  const IngestStats& stats() const { return published_stats_; }
  // Largest (collector now - sent_at) seen since the last call, in ns.
  std::int64_t take_max_lag_ns();
  // Connection events of the ingest sockets; any thread.
  std::uint64_t connections_accepted() const { return accepted_.load(std::memory_order_relaxed); }
  std::uint64_t connections_closed() const { return closed_.load(std::memory_order_relaxed); }
  std::uint64_t rejected(HandshakeRejection reason) const {
    return rejected_[static_cast<std::size_t>(reason)].load(std::memory_order_relaxed);
  }
  // The journal's state as of the last receive round; any thread.
  JournalStatus journal_status() const;

 private:
  struct Slot {
    DecodedBatch batch;
    PreparedBatch prepared;
    std::int64_t received_ns = 0;
    bool valid = false;  // false: an invalid frame, only its counters to publish
    IngestStats stats;   // the decoder's counters just after this frame
  };

  void receive_loop();
  void apply_loop();
  void on_frame(std::span<const std::uint8_t> frame);
  void log_rejections(std::int64_t now_ns);
  void log_refused_connections(std::int64_t now_ns);
  void tend_journal(std::int64_t now_ns);

  EngineHost& host_;
  Receiver receiver_;
  BatchDecoder decoder_;    // receive thread
  BatchPreparer preparer_;  // receive thread
  std::unique_ptr<JournalWriter> journal_;
  IngestStats published_stats_;  // EngineHost mutex
  std::atomic<bool> running_{false};
  std::atomic<std::int64_t> max_lag_ns_{0};
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> closed_{0};
  std::array<std::atomic<std::uint64_t>, kHandshakeRejectionCount> rejected_{};

  // The queue: slots_[(head_ + i) % kQueueSlots] for i < queued_ are waiting
  // to be applied; the receive thread decodes into the slot after them.
  std::array<Slot, kQueueSlots> slots_;
  std::mutex queue_mutex_;
  std::condition_variable not_full_;   // queued_ went down
  std::condition_variable not_empty_;  // queued_ went up, or closing_
  std::size_t head_ = 0;               // queue_mutex_
  std::size_t queued_ = 0;             // queue_mutex_
  bool closing_ = false;               // queue_mutex_: the receive thread has ended

  std::thread receive_thread_;
  std::thread apply_thread_;
  // Rate-limited logging of invalid frames (receive thread only).
  std::uint64_t rejected_since_log_ = 0;
  std::string last_rejection_;
  std::int64_t last_log_ns_ = 0;
  bool journal_failing_ = false;  // receive thread: an outage was logged
  mutable std::mutex journal_status_mutex_;
  JournalStatus journal_status_;  // journal_status_mutex_
  // Rate-limited logging of connections refused in the handshake.
  std::uint64_t refused_logged_ = 0;
  std::int64_t last_refused_log_ns_ = 0;
  std::string last_refused_key_logged_;
};

// Unix epoch nanoseconds from the system clock: the collector's clock.
std::int64_t collector_now_ns();

}  // namespace stallwatch::collector
