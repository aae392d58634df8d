// SPDX-License-Identifier: MIT
#include "recording_feeder.h"

#include <zmq.h>

#include <algorithm>
#include <limits>
#include <random>

#include "crafted_frames.h"
#include "ingest/batch_encoder.h"

namespace stallwatch::test {
namespace {

using collector::Event;
using collector::EventKind;
using collector::NameId;

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kMs = 1000 * kUs;
constexpr auto kFlushEvery = std::chrono::milliseconds(10);

// The wall clock on the oracle's grid of whole microseconds.
std::int64_t now_on_grid_ns() {
  return wall_clock_ns() / kUs * kUs;
}

struct Planned {
  std::int64_t ready_ns;  // when the process has it: its time, the end for Complete
  std::size_t order;      // ties keep the order of planning
  Event event;
};

}  // namespace

RecordingFeeder::RecordingFeeder(FeederPlan plan) : plan_(std::move(plan)) {
  for (const char* name : {"pipeline", "batch_size", "step", "dataloader", "fetch.iter", "compute",
                           "forward", "POSIX", "read"}) {
    names_.intern(name);
  }
}

RecordingFeeder::~RecordingFeeder() {
  join();
}

void RecordingFeeder::start() {
  thread_ = std::thread([this] { run(); });
}

void RecordingFeeder::join() {
  if (thread_.joinable()) thread_.join();
}

void RecordingFeeder::set_down(bool down) {
  std::lock_guard lock(mutex_);
  down_ = down;
}

std::string RecordingFeeder::restored(std::uint64_t events_received) {
  std::lock_guard lock(mutex_);
  std::uint64_t before = 0;
  for (std::size_t i = 0; i < period_begin_; ++i) {
    if (batches_[i].fate == BatchFate::kReceived) before += batches_[i].batch.events.size();
  }
  if (events_received < before) {
    return "restored " + std::to_string(events_received) + " events, fewer than the " +
           std::to_string(before) + " received before the last restart";
  }
  std::uint64_t rest = events_received - before;
  std::size_t i = period_begin_;
  for (; i < batches_.size() && rest > 0; ++i) {
    FedBatch& b = batches_[i];
    if (b.fate == BatchFate::kRefused) continue;
    if (b.batch.events.size() > rest) break;
    rest -= b.batch.events.size();
    b.fate = BatchFate::kReceived;
  }
  if (rest > 0) {
    return "no prefix of the " + std::to_string(batches_.size() - period_begin_) +
           " batches since the last restart holds the " + std::to_string(events_received - before) +
           " events restored for them";
  }
  for (; i < batches_.size(); ++i) {
    if (batches_[i].fate == BatchFate::kSent) batches_[i].fate = BatchFate::kLost;
  }
  period_begin_ = batches_.size();
  return "";
}

void RecordingFeeder::all_arrived() {
  std::lock_guard lock(mutex_);
  for (std::size_t i = period_begin_; i < batches_.size(); ++i) {
    if (batches_[i].fate == BatchFate::kSent) batches_[i].fate = BatchFate::kReceived;
  }
  period_begin_ = batches_.size();
}

std::vector<FedBatch> RecordingFeeder::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

void RecordingFeeder::run() {
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, ZMQ_PUSH);
  const int immediate = 1;
  const int reconnect_ms = 20;
  const int linger_ms = 2000;
  const int timeout_ms = 5000;
  zmq_setsockopt(socket, ZMQ_IMMEDIATE, &immediate, sizeof immediate);
  zmq_setsockopt(socket, ZMQ_RECONNECT_IVL, &reconnect_ms, sizeof reconnect_ms);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger_ms, sizeof linger_ms);
  zmq_setsockopt(socket, ZMQ_SNDTIMEO, &timeout_ms, sizeof timeout_ms);
  zmq_connect(socket, plan_.endpoint.c_str());

  const auto id = [this](const char* name) { return names_.find(name); };
  const NameId pipeline = id("pipeline"), batch_size = id("batch_size"), step = id("step"),
               dataloader = id("dataloader"), fetch = id("fetch.iter"), compute = id("compute"),
               forward = id("forward"), posix = id("POSIX"), read = id("read");

  SourceInfo source;
  source.job = plan_.job;
  source.rank = plan_.rank;
  source.host = "chaos-host";
  source.pid = 30000 + plan_.rank;
  source.ppid = 1;
  source.agent_version = "0.1.0";
  const auto main_tid = static_cast<std::uint32_t>(source.pid);
  const std::uint32_t loader_tid = main_tid + 1;

  const std::int64_t start = now_on_grid_ns();
  source.start_ns = start;
  const std::int64_t end = start + std::chrono::nanoseconds(plan_.run_for).count();
  const std::int64_t dies = plan_.dies_after.count() > 0
                                ? start + std::chrono::nanoseconds(plan_.dies_after).count()
                                : std::numeric_limits<std::int64_t>::max();

  std::mt19937 rng(plan_.seed);
  const auto between_us = [&](int lo_us, int hi_us) {
    return std::uniform_int_distribution<std::int64_t>(lo_us, hi_us)(rng) * kUs;
  };
  std::vector<Planned> pending;
  std::size_t order = 0;
  std::uint32_t next_region = 1;
  std::int64_t steps = 0;
  const auto add = [&](std::int64_t ready, EventKind kind, std::uint32_t tid, NameId cat,
                       NameId name, std::int64_t ts, std::int64_t dur, std::int64_t value,
                       std::uint32_t region) {
    Event e;
    e.kind = kind;
    e.tid = tid;
    e.cat = cat;
    e.name = name;
    e.ts_ns = ts;
    e.dur_ns = dur;
    e.value = value;
    e.region_id = region;
    pending.push_back(Planned{ready, order++, e});
  };
  // Plans whole steps, the first starting at `cursor`, while they start before `until`.
  std::int64_t cursor = start;
  const auto plan_until = [&](std::int64_t until) {
    while (cursor < until && cursor < end) {
      const std::int64_t t = cursor;
      const std::int64_t f = rng() % 8 == 0 ? between_us(60'000, 120'000) : between_us(3000, 20000);
      const std::int64_t c = between_us(8000, 25000);
      add(t, EventKind::kCounter, main_tid, pipeline, batch_size, t, 0, 32, 0);
      const std::uint32_t fetch_id = next_region++;
      add(t, EventKind::kBegin, main_tid, dataloader, fetch, t, 0, 0, fetch_id);
      add(t + f, EventKind::kEnd, main_tid, dataloader, fetch, t + f, 0, 0, fetch_id);
      if (rng() % 2 == 0) {
        const std::int64_t from = f / 4 / kUs * kUs, len = f / 2 / kUs * kUs;
        add(t + from + len, EventKind::kComplete, loader_tid, posix, read, t + from, len, 0, 0);
      }
      const std::uint32_t compute_id = next_region++;
      add(t + f, EventKind::kBegin, main_tid, compute, forward, t + f, 0, 0, compute_id);
      add(t + f + c, EventKind::kEnd, main_tid, compute, forward, t + f + c, 0, 0, compute_id);
      add(t + f + c, EventKind::kMark, main_tid, pipeline, step, t + f + c, 0, ++steps, 0);
      cursor = t + f + c;
    }
  };

  collector::BatchEncoder encoder;
  std::uint64_t seq = 0;
  std::uint64_t dropped = 0;
  bool first = true;
  auto next_flush = std::chrono::steady_clock::now();
  while (true) {
    next_flush += kFlushEvery;
    std::this_thread::sleep_until(next_flush);
    const std::int64_t now = now_on_grid_ns();
    if (now >= dies) break;
    plan_until(now + 1);
    const auto not_ready = std::stable_partition(
        pending.begin(), pending.end(), [&](const Planned& p) { return p.ready_ns <= now; });
    std::vector<Planned> ready(pending.begin(), not_ready);
    pending.erase(pending.begin(), not_ready);
    std::stable_sort(ready.begin(), ready.end(), [](const Planned& a, const Planned& b) {
      return a.ready_ns != b.ready_ns ? a.ready_ns < b.ready_ns : a.order < b.order;
    });
    const bool last = cursor >= end && pending.empty();
    if (ready.empty() && !last) continue;

    std::lock_guard lock(mutex_);
    if (down_) {
      dropped += ready.size();
      continue;
    }
    FedBatch fed;
    fed.batch.source = source;
    fed.batch.seq = seq++;
    fed.batch.sent_at_ns = now;
    fed.batch.dropped_since_last = dropped;
    fed.batch.final = last;
    for (const Planned& p : ready)
      fed.batch.events.push_back(p.event);
    const collector::EncodedFrame frame = encoder.encode(fed.batch, names_);
    const int flags = first || last ? 0 : ZMQ_DONTWAIT;
    const bool taken = frame.ok() && zmq_send(socket, frame.bytes.data(), frame.bytes.size(),
                                              flags) == static_cast<int>(frame.bytes.size());
    first = false;
    if (taken) {
      fed.fate = BatchFate::kSent;
      dropped = 0;
    } else {
      fed.fate = BatchFate::kRefused;
      dropped += ready.size();
    }
    batches_.push_back(std::move(fed));
    if (last) break;
  }
  zmq_close(socket);
  zmq_ctx_term(context);
}

}  // namespace stallwatch::test
