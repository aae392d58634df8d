// SPDX-License-Identifier: MIT
#include "crafted_frames.h"

#include <stallwatch/event_flags.h>
#include <stallwatch/protocol.h>
#include <zmq.h>

#include <chrono>

#include "engine/name_table.h"
#include "ingest/batch_encoder.h"
#include "stallwatch_generated.h"

namespace stallwatch::test {
namespace {

using collector::DecodedBatch;
using collector::Event;
using collector::EventKind;

constexpr std::int64_t kMs = 1'000'000;

// A Batch with the given version and one event naming strings[cat], strings[name].
Frame raw_batch(const std::string& job, std::uint32_t version, std::uint16_t cat,
                std::uint16_t name) {
  flatbuffers::FlatBufferBuilder builder;
  const std::int64_t now = wall_clock_ns();
  const auto strings = builder.CreateVectorOfStrings({"compute", "forward"});
  const wire::Event event(now - 5 * kMs, 1 * kMs, 0, 0, 4242, cat, name, wire::EventKind::Complete,
                          0);
  const auto events = builder.CreateVectorOfStructs(&event, 1);
  const auto source =
      wire::CreateSourceDirect(builder, job.c_str(), 0, "crafted-host", 4243, 1, "0.1.0");
  const auto batch = wire::CreateBatch(builder, version, source, 0, now, strings, events);
  wire::FinishBatchBuffer(builder, batch);
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

}  // namespace

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Frame encode_batch(const CraftedBatch& in) {
  collector::NameTable names;
  DecodedBatch batch;
  batch.source.job = in.job;
  batch.source.rank = in.rank;
  batch.source.host = "crafted-host";
  batch.source.pid = in.pid;
  batch.source.ppid = 1;
  batch.source.agent_version = "0.1.0";
  batch.source.start_ns = in.sent_at_ns - 1000 * kMs;
  batch.seq = in.seq;
  batch.sent_at_ns = in.sent_at_ns;
  batch.dropped_since_last = in.dropped_since_last;
  const auto tid = static_cast<std::uint32_t>(in.pid);
  const std::int64_t t = in.sent_at_ns - 100 * kMs + in.event_offset_ns;
  auto add = [&](std::int64_t ts, std::int64_t dur, EventKind kind, const char* cat,
                 const char* name, std::int64_t value) {
    Event e;
    e.ts_ns = ts;
    e.dur_ns = dur;
    e.kind = kind;
    e.tid = tid;
    e.cat = names.intern(cat);
    e.name = names.intern(name);
    e.value = value;
    batch.events.push_back(e);
  };
  add(t, 0, EventKind::kMark, "pipeline", "step", static_cast<std::int64_t>(in.seq) + 1);
  add(t, 0, EventKind::kCounter, "pipeline", "batch_size", 16);
  add(t, 40 * kMs, EventKind::kComplete, "dataloader", "fetch.iter", 0);
  add(t + 40 * kMs, 50 * kMs, EventKind::kComplete, "compute", "forward", 0);
  if (!in.file_path.empty()) {
    add(t, 0, EventKind::kMark, "posix_file", in.file_path.c_str(), 3);
    add(t + 5 * kMs, 10 * kMs, EventKind::kComplete, "POSIX", "read", 4096);
    batch.events.back().flags |= wire::kEventFlagCompleteValue;
    batch.events.back().region_id = 3;
  }
  if (in.comm_dur_ns > 0) {
    add(t + in.comm_start_ns, in.comm_dur_ns, EventKind::kComplete, "comm", "all_reduce", 1 << 20);
  }
  collector::BatchEncoder encoder;
  const collector::EncodedFrame frame = encoder.encode(batch, names);
  return {frame.bytes.begin(), frame.bytes.end()};
}

Frame random_frame(std::mt19937_64& rng, std::size_t size) {
  Frame frame(size);
  for (auto& b : frame)
    b = static_cast<std::uint8_t>(rng());
  if (frame.size() >= 8 && frame[4] == 'S') frame[4] = 'X';
  return frame;
}

Frame random_frame_with_identifier(std::mt19937_64& rng, std::size_t size) {
  Frame frame = random_frame(rng, size);
  const char* id = wire::BatchIdentifier();
  for (int i = 0; i < 4; ++i)
    frame[4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(id[i]);
  return frame;
}

Frame other_major_version_frame(const std::string& job) {
  return raw_batch(job, (wire::kProtocolMajor + 1) << 16, 0, 1);
}

Frame bad_name_index_frame(const std::string& job) {
  return raw_batch(job, wire::kProtocolVersion, 0, 9);
}

FramePusher::FramePusher(const std::string& endpoint) {
  context_ = zmq_ctx_new();
  socket_ = zmq_socket(context_, ZMQ_PUSH);
  const int timeout_ms = 5000;
  const int linger_ms = 1000;
  zmq_setsockopt(socket_, ZMQ_SNDTIMEO, &timeout_ms, sizeof timeout_ms);
  zmq_setsockopt(socket_, ZMQ_LINGER, &linger_ms, sizeof linger_ms);
  zmq_connect(socket_, endpoint.c_str());
}

FramePusher::~FramePusher() {
  zmq_close(socket_);
  zmq_ctx_term(context_);
}

bool FramePusher::send(std::span<const std::uint8_t> frame) {
  return zmq_send(socket_, frame.data(), frame.size(), 0) == static_cast<int>(frame.size());
}

}  // namespace stallwatch::test
