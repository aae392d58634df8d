// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace stallwatch::bench {

// Who a simulated rank claims to be on the wire.
struct SimulatedRank {
  std::string job;
  std::int32_t rank = 0;
  std::int32_t pid = 0;
  std::string host = "bench-host";
};

// FrameTemplate: one pre-encoded batch of a simulated rank (BatchEncoder
// output) that moves forward in time in place. advance() adds a delta to
// every event time and to sent_at_ns and bumps seq, patching the FlatBuffers
// bytes directly, so a sender replays an endless, contiguous, valid stream of
// one rank from a single encoding at memory speed.
//
// The events are a training loop on five threads: per iteration a step mark,
// a fetch.iter region, forward/backward/optimizer regions on the main thread
// with GPU kernels (COMPLETE, cat gpu) inside them, and two data-loader
// workers each with a read.batch region around POSIX reads; a batch_size
// counter every 10 iterations. Every BEGIN has its END within the frame.
//
// Owned by one sender thread; not thread-safe.
class FrameTemplate {
 public:
  // `event_count` events spanning [end_ns - span_ns, end_ns), sent at end_ns,
  // seq 1 (later: 2, 3, ...). Aborts the process if the batch cannot be
  // encoded (a bug in the benchmark, not a measurement).
  FrameTemplate(const SimulatedRank& rank, std::size_t event_count, std::int64_t end_ns,
                std::int64_t span_ns);

  // Moves every time `delta_ns` later and to the next seq.
  void advance(std::int64_t delta_ns);

  std::span<const std::uint8_t> bytes() const { return bytes_; }
  std::size_t event_count() const { return event_count_; }
  std::int64_t sent_at_ns() const { return sent_at_ns_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t event_count_ = 0;
  std::size_t events_offset_ = 0;
  std::size_t sent_at_offset_ = 0;
  std::size_t seq_offset_ = 0;
  std::int64_t sent_at_ns_ = 0;
  std::uint64_t seq_ = 1;
};

// Unix epoch nanoseconds (the collector's clock) and CLOCK_MONOTONIC ns.
std::int64_t wall_now_ns();
std::int64_t mono_now_ns();

}  // namespace stallwatch::bench
