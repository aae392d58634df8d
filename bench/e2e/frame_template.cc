// SPDX-License-Identifier: MIT
#include "frame_template.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/batch_encoder.h"
#include "stallwatch_generated.h"

namespace stallwatch::bench {
namespace {

using collector::DecodedBatch;
using collector::Event;
using collector::EventKind;
using collector::NameId;
using collector::NameTable;

static_assert(sizeof(wire::Event) == 40, "event times are patched at offset 0 of 40-byte structs");

constexpr int kWorkers = 2;
constexpr int kForwardKernels = 40;
constexpr int kBackwardKernels = 80;
constexpr int kOptimizerKernels = 10;
constexpr int kReadsPerBatch = 20;
// Events of one iteration, without the batch_size counter.
constexpr std::size_t kEventsPerIteration = 1 + 2 + (2 + kForwardKernels) + (2 + kBackwardKernels) +
                                            (2 + kOptimizerKernels) +
                                            kWorkers * (2 + kReadsPerBatch);

struct LoopNames {
  NameId pipeline, dataloader, compute, gpu, posix;
  NameId step, batch_size, fetch, forward, backward, optimizer, read_batch, read, gemm, conv;
};

// Appends the events of a training loop to a batch, per thread in time order.
class LoopWriter {
 public:
  LoopWriter(DecodedBatch& batch, const LoopNames& n, std::uint32_t pid)
      : b_(batch), n_(n), pid_(pid) {}

  // A MARK or COUNTER of cat pipeline on the main thread.
  void instant(std::int64_t ts, NameId name, std::int64_t value, EventKind kind) {
    push(pid_, ts, 0, kind, n_.pipeline, name, value, 0);
  }
  // Opens a region on thread pid + `thread`; the END repeats its names.
  std::uint32_t begin(std::uint32_t thread, std::int64_t ts, NameId cat, NameId name) {
    const std::uint32_t id = ++region_ids_[thread];
    push(pid_ + thread, ts, 0, EventKind::kBegin, cat, name, 0, id);
    return id;
  }
  void end(std::uint32_t thread, std::int64_t ts, std::uint32_t id, NameId cat, NameId name) {
    push(pid_ + thread, ts, 0, EventKind::kEnd, cat, name, 0, id);
  }
  void complete(std::uint32_t thread, std::int64_t ts, std::int64_t dur, NameId cat, NameId name) {
    push(pid_ + thread, ts, dur, EventKind::kComplete, cat, name, 0, 0);
  }
  // `count` kernels spread over [a, b) on the GPU stream (thread 3).
  void kernels(std::int64_t a, std::int64_t b, int count) {
    const std::int64_t slot = (b - a) / count;
    for (int i = 0; i < count; ++i) {
      complete(3, a + i * slot, slot * 4 / 5, n_.gpu, i % 3 == 0 ? n_.conv : n_.gemm);
    }
  }
  // A main-thread region [a, b) with `count` kernels inside.
  void compute(std::int64_t a, std::int64_t b, NameId name, int count) {
    const std::uint32_t id = begin(0, a, n_.compute, name);
    kernels(a, b, count);
    end(0, b, id, n_.compute, name);
  }

 private:
  void push(std::uint32_t tid, std::int64_t ts, std::int64_t dur, EventKind kind, NameId cat,
            NameId name, std::int64_t value, std::uint32_t region) {
    Event e;
    e.ts_ns = ts;
    e.dur_ns = dur;
    e.kind = kind;
    e.tid = tid;
    e.cat = cat;
    e.name = name;
    e.value = value;
    e.region_id = region;
    b_.events.push_back(e);
  }

  DecodedBatch& b_;
  const LoopNames& n_;
  std::uint32_t pid_;
  std::uint32_t region_ids_[3] = {};
};

void write_loop(DecodedBatch& batch, const LoopNames& n, std::uint32_t pid, std::size_t count,
                std::int64_t start, std::int64_t span) {
  LoopWriter w(batch, n, pid);
  const std::size_t iterations = std::max<std::size_t>(1, count / (kEventsPerIteration + 1));
  const std::int64_t d = span / static_cast<std::int64_t>(iterations);
  for (std::size_t it = 0; it < iterations; ++it) {
    const std::int64_t t = start + static_cast<std::int64_t>(it) * d;
    if (it % 10 == 0) w.instant(t, n.batch_size, 256, EventKind::kCounter);
    w.instant(t, n.step, static_cast<std::int64_t>(it), EventKind::kMark);
    w.end(0, t + d / 5, w.begin(0, t, n.dataloader, n.fetch), n.dataloader, n.fetch);
    w.compute(t + d / 5, t + d * 9 / 20, n.forward, kForwardKernels);
    w.compute(t + d * 9 / 20, t + d * 9 / 10, n.backward, kBackwardKernels);
    w.compute(t + d * 9 / 10, t + d - 1, n.optimizer, kOptimizerKernels);
    for (std::uint32_t k = 1; k <= kWorkers; ++k) {
      const std::int64_t read = d / (kReadsPerBatch + 2);
      const std::uint32_t id = w.begin(k, t, n.dataloader, n.read_batch);
      for (int r = 0; r < kReadsPerBatch; ++r) {
        w.complete(k, t + (r + 1) * read, read * 3 / 4, n.posix, n.read);
      }
      w.end(k, t + d - read / 2, id, n.dataloader, n.read_batch);
    }
  }
  // Top up to exactly `count` with kernels in the last backward pass.
  const std::int64_t last = start + static_cast<std::int64_t>(iterations - 1) * d;
  while (batch.events.size() < count) {
    const auto i = static_cast<std::int64_t>(batch.events.size());
    w.complete(3, last + d / 2 + i % (d / 4), 1000, n.gpu, n.gemm);
  }
}

std::size_t offset_of(const std::vector<std::uint8_t>& bytes, const std::uint8_t* p) {
  return static_cast<std::size_t>(p - bytes.data());
}

}  // namespace

std::int64_t wall_now_ns() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::int64_t mono_now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

FrameTemplate::FrameTemplate(const SimulatedRank& rank, std::size_t event_count,
                             std::int64_t end_ns, std::int64_t span_ns)
    : event_count_(event_count), sent_at_ns_(end_ns) {
  NameTable names;
  const LoopNames n{names.intern("pipeline"),
                    names.intern("dataloader"),
                    names.intern("compute"),
                    names.intern("gpu"),
                    names.intern("POSIX"),
                    names.intern("step"),
                    names.intern("batch_size"),
                    names.intern("fetch.iter"),
                    names.intern("forward"),
                    names.intern("backward"),
                    names.intern("optimizer.step"),
                    names.intern("read.batch"),
                    names.intern("read"),
                    names.intern("ampere_sgemm_128x64_nn"),
                    names.intern("implicit_convolve_sgemm")};
  DecodedBatch batch;
  batch.source.job = rank.job;
  batch.source.rank = rank.rank;
  batch.source.host = rank.host;
  batch.source.pid = rank.pid;
  batch.source.ppid = 1;
  batch.source.agent_version = "0.1.0";
  batch.source.start_ns = end_ns - span_ns;
  batch.source.device_source = stallwatch::DeviceSource::kCupti;
  batch.seq = seq_;
  batch.sent_at_ns = end_ns;
  batch.events.reserve(event_count);
  write_loop(batch, n, static_cast<std::uint32_t>(rank.pid), event_count, end_ns - span_ns,
             span_ns);
  collector::BatchEncoder encoder;
  const collector::EncodedFrame frame = encoder.encode(batch, names);
  if (!frame.ok() || batch.events.size() != event_count) {
    std::fprintf(stderr, "bench: cannot build a %zu-event frame: %s\n", event_count,
                 frame.error.c_str());
    std::abort();
  }
  bytes_.assign(frame.bytes.begin(), frame.bytes.end());

  const wire::Batch* root = wire::GetBatch(bytes_.data());
  // Batch derives privately from flatbuffers::Table, whose accessors give
  // the address of a scalar field (present: seq and sent_at are non-zero).
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(root);
  events_offset_ = offset_of(bytes_, root->events()->Data());
  sent_at_offset_ = offset_of(bytes_, table->GetAddressOf(wire::Batch::VT_SENT_AT_NS));
  seq_offset_ = offset_of(bytes_, table->GetAddressOf(wire::Batch::VT_SEQ));
}

void FrameTemplate::advance(std::int64_t delta_ns) {
  std::uint8_t* events = bytes_.data() + events_offset_;
  for (std::size_t i = 0; i < event_count_; ++i) {
    std::int64_t ts;
    std::memcpy(&ts, events + i * sizeof(wire::Event), sizeof ts);
    ts += delta_ns;
    std::memcpy(events + i * sizeof(wire::Event), &ts, sizeof ts);
  }
  sent_at_ns_ += delta_ns;
  ++seq_;
  std::memcpy(bytes_.data() + sent_at_offset_, &sent_at_ns_, sizeof sent_at_ns_);
  std::memcpy(bytes_.data() + seq_offset_, &seq_, sizeof seq_);
}

}  // namespace stallwatch::bench
