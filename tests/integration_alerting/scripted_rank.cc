// SPDX-License-Identifier: MIT
#include "scripted_rank.h"

#include <zmq.h>

#include <chrono>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/batch_encoder.h"

namespace stallwatch::test {
namespace {

using collector::DecodedBatch;
using collector::Event;
using collector::EventKind;

constexpr std::int64_t kSlotNs = 100'000'000;

std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ScriptedRank::ScriptedRank(std::string endpoint, std::string job, std::int32_t rank,
                           double stall_share)
    : endpoint_(std::move(endpoint)), job_(std::move(job)), rank_(rank) {
  set_stall_share(stall_share);
}

ScriptedRank::~ScriptedRank() {
  stop();
}

void ScriptedRank::start() {
  thread_ = std::thread([this] { run(); });
}

void ScriptedRank::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void ScriptedRank::run() {
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, ZMQ_PUSH);
  const int linger = 500;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  zmq_connect(socket, endpoint_.c_str());

  collector::NameTable names;
  collector::BatchEncoder encoder;
  const auto fetch_cat = names.intern("dataloader");
  const auto fetch_name = names.intern("fetch.iter");
  const auto compute_cat = names.intern("compute");
  const auto compute_name = names.intern("forward");
  const auto step_name = names.intern("step");
  const auto step_cat = names.intern("pipeline");

  DecodedBatch batch;
  batch.source.job = job_;
  batch.source.rank = rank_;
  batch.source.host = "scripted-host";
  batch.source.pid = 40000 + rank_;
  batch.source.ppid = 1;
  batch.source.agent_version = "scripted";
  const auto tid = static_cast<std::uint32_t>(batch.source.pid);

  std::int64_t cursor = unix_now_ns() / kSlotNs * kSlotNs;
  batch.source.start_ns = cursor;
  std::int64_t step = 0;
  int permille = stall_permille_;
  while (!stop_) {
    const std::int64_t now = unix_now_ns();
    if (now < cursor + kSlotNs) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(cursor + kSlotNs - now));
      continue;
    }
    batch.events.clear();
    while (cursor + kSlotNs <= now) {  // catches up whole slots after a stall of this thread
      if (stall_permille_ != permille) {
        permille = stall_permille_;
        share_changed_at_ns_ = cursor;
      }
      const std::int64_t fetch = kSlotNs * permille / 1000;
      if (fetch > 0) {
        batch.events.push_back(
            Event{cursor, fetch, 0, 0, tid, fetch_cat, fetch_name, EventKind::kComplete, 0});
      }
      if (fetch < kSlotNs) {
        batch.events.push_back(Event{cursor + fetch, kSlotNs - fetch, 0, 0, tid, compute_cat,
                                     compute_name, EventKind::kComplete, 0});
      }
      batch.events.push_back(
          Event{cursor + kSlotNs - 1, 0, step++, 0, tid, step_cat, step_name, EventKind::kMark, 0});
      cursor += kSlotNs;
    }
    batch.sent_at_ns = now;
    const auto frame = encoder.encode(batch, names);
    if (frame.ok()) {
      zmq_send(socket, frame.bytes.data(), frame.bytes.size(), 0);
      ++batch.seq;
      if (first_sent_ns_ == 0) first_sent_ns_ = now;
      ++batches_sent_;
    }
  }
  zmq_close(socket);
  zmq_ctx_term(context);
}

}  // namespace stallwatch::test
