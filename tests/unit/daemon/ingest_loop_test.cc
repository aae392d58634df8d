// SPDX-License-Identifier: MIT
#include "ingest_loop.h"

#include <gtest/gtest.h>
#include <zmq.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine_host.h"
#include "ingest/batch_encoder.h"

namespace stallwatch::collector {
namespace {

using namespace std::chrono_literals;

constexpr int kFrames = 400;
constexpr int kEventsPerFrame = 50;
constexpr int kInvalidEvery = 7;  // every 7th frame is garbage

// A PUSH socket of the test's own.
class Pusher {
 public:
  explicit Pusher(const std::string& endpoint)
      : context_(zmq_ctx_new()), socket_(zmq_socket(context_, ZMQ_PUSH)) {
    const int linger = -1;
    zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof linger);
    connected_ = zmq_connect(socket_, endpoint.c_str()) == 0;
  }
  ~Pusher() {
    zmq_close(socket_);
    zmq_ctx_term(context_);
  }
  bool connected() const { return connected_; }
  bool send(std::span<const std::uint8_t> bytes) {
    return zmq_send(socket_, bytes.data(), bytes.size(), 0) == static_cast<int>(bytes.size());
  }

 private:
  void* context_;
  void* socket_;
  bool connected_ = false;
};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Frame `i` of one process: kEventsPerFrame complete events, the first one
// with a name no earlier frame used (so the receive thread interns a new
// name under the engine's lock while the apply thread works).
DecodedBatch frame_batch(NameTable& names, int i, std::int64_t base_ns) {
  DecodedBatch batch;
  batch.source.job = "pipeline-test";
  batch.source.rank = 0;
  batch.source.host = "host";
  batch.source.pid = 4321;
  batch.source.start_ns = base_ns;
  batch.seq = static_cast<std::uint64_t>(i);
  const std::int64_t t0 = base_ns + std::int64_t{i} * 1'000'000;
  batch.sent_at_ns = t0 + 1'000'000;
  const NameId cat = names.intern("compute");
  for (int e = 0; e < kEventsPerFrame; ++e) {
    Event ev;
    ev.ts_ns = t0 + e * 10'000;
    ev.dur_ns = 5'000;
    ev.tid = 4321;
    ev.cat = cat;
    ev.name = names.intern(e == 0 ? "op" + std::to_string(i) : "forward");
    ev.kind = EventKind::kComplete;
    batch.events.push_back(ev);
  }
  return batch;
}

TEST(IngestLoopTest, AppliesEveryValidFrameAndCountsTheRestInOrder) {
  EngineHost host(EngineConfig{});
  IngestLoop loop(host, nullptr);
  ASSERT_EQ(loop.bind({"tcp://127.0.0.1:*"}), "");
  loop.start();

  Pusher pusher(loop.endpoints().front());
  ASSERT_TRUE(pusher.connected());
  NameTable sender_names;
  BatchEncoder encoder;
  const std::int64_t base = now_ns() - 10'000'000'000;
  const std::vector<std::uint8_t> garbage(64, 0x5a);
  int valid = 0;
  for (int i = 0; i < kFrames; ++i) {
    if (i % kInvalidEvery == kInvalidEvery - 1) {
      ASSERT_TRUE(pusher.send(garbage));
      continue;
    }
    const EncodedFrame frame = encoder.encode(frame_batch(sender_names, valid, base), sender_names);
    ASSERT_TRUE(frame.ok());
    ASSERT_TRUE(pusher.send(frame.bytes));
    ++valid;
  }

  // Counters published with the engine's lock held never run ahead of what
  // the engine has applied.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::uint64_t frames_seen = 0;
  while (frames_seen < kFrames && std::chrono::steady_clock::now() < deadline) {
    {
      std::lock_guard lock(host.mutex());
      const IngestStats& stats = loop.stats();
      frames_seen = stats.frames_received;
      const auto snapshot = host.engine().tick(now_ns());
      EXPECT_EQ(snapshot->counters.events_received, stats.events_received);
    }
    std::this_thread::sleep_for(1ms);
  }
  loop.stop();

  std::lock_guard lock(host.mutex());
  const IngestStats& stats = loop.stats();
  EXPECT_EQ(stats.frames_received, static_cast<std::uint64_t>(kFrames));
  EXPECT_EQ(stats.invalid(FrameErrorReason::kBadIdentifier),
            static_cast<std::uint64_t>(kFrames - valid));
  EXPECT_EQ(stats.events_received, static_cast<std::uint64_t>(valid) * kEventsPerFrame);
  const auto snapshot = host.engine().tick(now_ns());
  EXPECT_EQ(snapshot->counters.events_received, stats.events_received);
  EXPECT_EQ(snapshot->counters.batches_received, static_cast<std::uint64_t>(valid));
  EXPECT_EQ(snapshot->counters.lost_batches, 0u);  // applied in order: no sequence gap
  // Every frame's new name reached the engine's table once.
  for (int i = 0; i < valid; ++i) {
    EXPECT_NE(host.names().find("op" + std::to_string(i)), NameTable::kEmpty) << i;
  }
}

TEST(IngestLoopTest, StopsCleanlyWithNothingReceived) {
  EngineHost host(EngineConfig{});
  IngestLoop loop(host, nullptr);
  ASSERT_EQ(loop.bind({"tcp://127.0.0.1:*"}), "");
  loop.start();
  std::this_thread::sleep_for(20ms);
  loop.stop();
  std::lock_guard lock(host.mutex());
  EXPECT_EQ(loop.stats().frames_received, 0u);
}

}  // namespace
}  // namespace stallwatch::collector
