// SPDX-License-Identifier: MIT
#pragma once

// A training process of one rank, simulated in a thread of the test, that
// sends real frames to stallwatchd over ZeroMQ (a PUSH socket with
// ZMQ_IMMEDIATE, as the agent's) and keeps every batch it made with its
// sequence number and what became of it, so that a test can rebuild exactly
// what the daemon received and run the oracle over it.
//
// The rank's main thread loops over steps: a batch-size counter, a fetch
// region and a compute region (Begin/End pairs, so a region often spans two
// batches), a step mark; a loader thread reads during some fetches (Complete
// POSIX reads). A batch goes out every 10 ms with what is ready. All times
// are whole microseconds of the wall clock (the oracle's grid).
//
// What it does with a batch, as the agent does:
// - while the test says the daemon is down (set_down), it drops the batch
//   and reports its events in dropped_since_last of the next batch it sends;
// - a batch ZeroMQ refuses uses its sequence number (a gap for the daemon)
//   and its events are reported as dropped too;
// - a batch ZeroMQ takes may still be lost on the wire when the daemon is
//   killed: only the daemon can say which (restored()).
// The first and the last (final) batch wait up to 5 s to be taken. A plan
// that `dies` stops without a final batch, leaving its open region open.
//
// The simulation runs in its own thread; every other member is called from
// the test's thread and is safe to call while it runs.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"

namespace stallwatch::test {

struct FeederPlan {
  std::string job;
  int rank = 0;
  std::string endpoint;
  std::uint32_t seed = 1;
  std::chrono::milliseconds run_for{5000};  // then a final batch
  // When > 0: stops this long after its start, without a final batch.
  std::chrono::milliseconds dies_after{0};
};

enum class BatchFate : std::uint8_t {
  kRefused,   // ZeroMQ refused it: a sequence gap, events reported as dropped
  kSent,      // taken by ZeroMQ; not known yet whether it arrived
  kReceived,  // the daemon has it (restored from its journal, or sent after the last restart)
  kLost,      // taken by ZeroMQ but lost with the killed daemon: a sequence gap
};

struct FedBatch {
  collector::DecodedBatch batch;
  BatchFate fate = BatchFate::kSent;
};

class RecordingFeeder {
 public:
  explicit RecordingFeeder(FeederPlan plan);
  ~RecordingFeeder();
  RecordingFeeder(const RecordingFeeder&) = delete;
  RecordingFeeder& operator=(const RecordingFeeder&) = delete;

  void start();
  // Waits for the simulation to end (run_for or dies_after).
  void join();

  // While down, batches are dropped instead of sent. Once set_down(true)
  // returns, nothing more is sent until set_down(false).
  void set_down(bool down);
  // A restarted daemon shows `events_received` for this rank, restored from
  // its journal, while the feeder is down. The daemon received the batches
  // of earlier periods that were received, and of the batches taken since
  // the last restart a prefix (one connection, in order): the one whose
  // events add up to the rest. Those become kReceived, the others of the
  // period kLost. Returns "" or why no prefix fits.
  std::string restored(std::uint64_t events_received);
  // After join(), with no kill since the last restart: every batch taken
  // since then arrived.
  void all_arrived();

  std::vector<FedBatch> batches() const;
  const collector::NameTable& names() const { return names_; }
  const FeederPlan& plan() const { return plan_; }

 private:
  void run();

  FeederPlan plan_;
  collector::NameTable names_;  // filled by the constructor, read-only after
  std::thread thread_;

  mutable std::mutex mutex_;
  bool down_ = false;
  std::vector<FedBatch> batches_;
  std::size_t period_begin_ = 0;  // first batch since the last restart
};

}  // namespace stallwatch::test
