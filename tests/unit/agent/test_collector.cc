// SPDX-License-Identifier: MIT
#include "test_collector.h"

#include <stdlib.h>
#include <zmq.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "stallwatch/protocol.h"
#include "stallwatch_generated.h"

namespace stallwatch::test {

std::optional<ReceivedBatch> decode_batch(const void* frame, std::size_t size) {
  if (size > wire::kMaxFrameBytes) return std::nullopt;
  // ZeroMQ message data has no particular alignment; FlatBuffers needs 8.
  std::vector<std::uint64_t> aligned((size + 7) / 8);
  std::memcpy(aligned.data(), frame, size);
  const void* data = aligned.data();
  flatbuffers::Verifier verifier(static_cast<const std::uint8_t*>(data), size);
  if (!wire::VerifyBatchBuffer(verifier)) return std::nullopt;
  const wire::Batch* batch = wire::GetBatch(data);
  if (wire::protocol_major(batch->protocol_version()) != wire::kProtocolMajor) return std::nullopt;
  ReceivedBatch out;
  out.protocol_version = batch->protocol_version();
  const wire::Source* source = batch->source();
  out.job = source->job() != nullptr ? source->job()->str() : "";
  out.rank = source->rank();
  out.host = source->host() != nullptr ? source->host()->str() : "";
  out.pid = source->pid();
  out.ppid = source->ppid();
  out.agent_version = source->agent_version() != nullptr ? source->agent_version()->str() : "";
  out.start_ns = source->start_ns();
  out.role = static_cast<std::uint8_t>(source->role());
  out.device_source = static_cast<std::uint8_t>(source->device_source());
  out.seq = batch->seq();
  out.sent_at_ns = batch->sent_at_ns();
  out.dropped_since_last = batch->dropped_since_last();
  out.final = batch->final();
  std::vector<std::string> strings;
  if (batch->strings() != nullptr) {
    for (const flatbuffers::String* s : *batch->strings())
      strings.push_back(s->str());
  }
  out.string_count = strings.size();
  if (batch->events() != nullptr) {
    for (const wire::Event* e : *batch->events()) {
      if (e->cat() >= strings.size() || e->name() >= strings.size()) return std::nullopt;
      out.events.push_back(ReceivedEvent{e->ts_ns(), e->dur_ns(), e->value(), e->region_id(),
                                         e->tid(), strings[e->cat()], strings[e->name()],
                                         static_cast<std::uint8_t>(e->kind()), e->flags()});
    }
  }
  return out;
}

std::string TestCollector::make_temp_directory() {
  char pattern[] = "/tmp/stallwatch-test-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

TestCollector::TestCollector(std::string directory)
    : directory_(std::move(directory)), endpoint_(endpoint_in(directory_)) {
  context_ = zmq_ctx_new();
  socket_ = zmq_socket(context_, ZMQ_PULL);
  const int linger = 0;
  zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger));
  if (zmq_bind(socket_, endpoint_.c_str()) != 0) throw std::runtime_error("zmq_bind failed");
}

TestCollector::~TestCollector() {
  zmq_close(socket_);
  zmq_ctx_term(context_);
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::optional<ReceivedBatch> TestCollector::receive(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    zmq_pollitem_t item{socket_, 0, ZMQ_POLLIN, 0};
    if (left.count() <= 0 || zmq_poll(&item, 1, static_cast<long>(left.count())) <= 0) {
      return std::nullopt;
    }
    zmq_msg_t message;
    zmq_msg_init(&message);
    if (zmq_msg_recv(&message, socket_, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&message);
      continue;
    }
    std::optional<ReceivedBatch> batch =
        decode_batch(zmq_msg_data(&message), zmq_msg_size(&message));
    zmq_msg_close(&message);
    if (batch) return batch;
    ++invalid_frames_;
  }
}

bool TestCollector::receive_until(
    const std::function<bool(const std::vector<ReceivedBatch>&)>& done,
    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done(received_)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (std::optional<ReceivedBatch> batch = receive(left)) received_.push_back(std::move(*batch));
  }
  return true;
}

std::size_t count_events(const std::vector<ReceivedBatch>& batches, std::int32_t pid) {
  std::size_t count = 0;
  for (const ReceivedBatch& batch : batches) {
    if (pid == 0 || batch.pid == pid) count += batch.events.size();
  }
  return count;
}

bool has_final(const std::vector<ReceivedBatch>& batches, std::int32_t pid) {
  for (const ReceivedBatch& batch : batches) {
    if (batch.final && (pid == 0 || batch.pid == pid)) return true;
  }
  return false;
}

}  // namespace stallwatch::test
