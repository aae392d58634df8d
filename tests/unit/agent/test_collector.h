// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stallwatch::test {

struct ReceivedEvent {
  std::int64_t ts_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t value = 0;
  std::uint32_t region_id = 0;
  std::uint32_t tid = 0;
  std::string cat;
  std::string name;
  std::uint8_t kind = 0;  // wire::EventKind
  std::uint8_t flags = 0;
};

// One wire Batch, verified and decoded with its names resolved.
struct ReceivedBatch {
  std::uint32_t protocol_version = 0;
  std::string job;
  std::int32_t rank = 0;
  std::string host;
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::string agent_version;
  std::int64_t start_ns = 0;
  std::uint8_t role = 0;           // wire::ProcessRole
  std::uint8_t device_source = 0;  // wire::DeviceSource
  std::uint64_t seq = 0;
  std::int64_t sent_at_ns = 0;
  std::uint64_t dropped_since_last = 0;
  bool final = false;
  std::size_t string_count = 0;
  std::vector<ReceivedEvent> events;
};

// Copies the frame to an aligned buffer (ZeroMQ gives no alignment
// guarantee), runs the FlatBuffers verifier (with the "SWTC" identifier) and decodes
// through the generated accessors; nullopt for any frame that fails, that has
// another major protocol version or an out-of-range string index.
std::optional<ReceivedBatch> decode_batch(const void* data, std::size_t size);

// A stand-in for stallwatchd's ingest: one ZeroMQ PULL socket bound on an ipc
// socket in a fresh temporary directory (removed on destruction). Owns its
// own ZeroMQ context; use from one thread.
class TestCollector {
 public:
  TestCollector() : TestCollector(make_temp_directory()) {}
  // Binds ipc://<directory>/ingest.sock; takes ownership of `directory`.
  explicit TestCollector(std::string directory);
  ~TestCollector();
  TestCollector(const TestCollector&) = delete;
  TestCollector& operator=(const TestCollector&) = delete;

  // A new empty directory under /tmp.
  static std::string make_temp_directory();
  static std::string endpoint_in(const std::string& directory) {
    return "ipc://" + directory + "/ingest.sock";
  }

  const std::string& endpoint() const { return endpoint_; }
  const std::string& directory() const { return directory_; }

  // The next frame, decoded, or nullopt after `timeout`. Frames that fail to
  // decode are counted in invalid_frames() and skipped.
  std::optional<ReceivedBatch> receive(std::chrono::milliseconds timeout);
  // Receives into received() until `done(received())` or `timeout`; returns done's last value.
  bool receive_until(const std::function<bool(const std::vector<ReceivedBatch>&)>& done,
                     std::chrono::milliseconds timeout);
  const std::vector<ReceivedBatch>& received() const { return received_; }
  std::size_t invalid_frames() const { return invalid_frames_; }

 private:
  std::string directory_;
  std::string endpoint_;
  void* context_ = nullptr;
  void* socket_ = nullptr;
  std::vector<ReceivedBatch> received_;
  std::size_t invalid_frames_ = 0;
};

// Helpers over received batches.
std::size_t count_events(const std::vector<ReceivedBatch>& batches, std::int32_t pid = 0);
bool has_final(const std::vector<ReceivedBatch>& batches, std::int32_t pid = 0);

}  // namespace stallwatch::test
