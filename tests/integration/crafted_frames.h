// SPDX-License-Identifier: MIT
#pragma once

// Frames an integration test sends to stallwatchd by hand, valid or broken on
// purpose, and the ZeroMQ PUSH socket that sends them. Valid batches come
// from the collector's own BatchEncoder; broken ones are built with the
// FlatBuffers API or from raw bytes. Test-only.

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/decoded_batch.h"

namespace stallwatch::test {

using Frame = std::vector<std::uint8_t>;

// Unix epoch nanoseconds, the collector's clock.
std::int64_t wall_clock_ns();

// A small realistic batch for (job, rank) from process `pid`: a fetch and a
// compute region ending just before `sent_at_ns`, a step mark, 4 events.
struct CraftedBatch {
  std::string job;
  std::int32_t rank = 0;
  std::int32_t pid = 4242;
  std::uint64_t seq = 0;
  std::int64_t sent_at_ns = 0;
  std::uint64_t dropped_since_last = 0;
  std::int64_t event_offset_ns = 0;  // added to every event time (e.g. past the allowed lead)
  // With comm_dur_ns > 0: an all_reduce (cat "comm") this long, starting
  // comm_start_ns after the step mark.
  std::int64_t comm_start_ns = 0;
  std::int64_t comm_dur_ns = 0;
  // Non-empty: the file is named (a posix_file mark) and read, 4096 bytes
  // in 10 ms, 5 ms into the fetch.
  std::string file_path = {};
};
Frame encode_batch(const CraftedBatch& batch);

// Random bytes (bad_identifier: no "SWTC" at offset 4).
Frame random_frame(std::mt19937_64& rng, std::size_t size);
// Random bytes behind a valid file identifier (malformed).
Frame random_frame_with_identifier(std::mt19937_64& rng, std::size_t size);
// A well-formed Batch of protocol major version 2 (version).
Frame other_major_version_frame(const std::string& job);
// A well-formed Batch whose event names string 9 of 2 (semantic).
Frame bad_name_index_frame(const std::string& job);

// A PUSH socket connected to `endpoint`. send() blocks up to 5 s.
class FramePusher {
 public:
  explicit FramePusher(const std::string& endpoint);
  ~FramePusher();
  FramePusher(const FramePusher&) = delete;
  FramePusher& operator=(const FramePusher&) = delete;

  bool send(std::span<const std::uint8_t> frame);

 private:
  void* context_ = nullptr;
  void* socket_ = nullptr;
};

}  // namespace stallwatch::test
