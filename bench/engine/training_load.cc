// SPDX-License-Identifier: MIT
#include "training_load.h"

#include <array>
#include <string>

#include "stallwatch/event_flags.h"

namespace stallwatch::bench {
namespace {

using collector::DecodedBatch;
using collector::Event;
using collector::EventKind;

constexpr std::int64_t kIteration = 10'000'000;
constexpr std::int64_t kUs = 1'000;

struct Names {
  collector::NameId loader, fetch_iter, compute, step, forward, backward, framework, optimizer, gpu,
      kernel, dataloader, collate, posix, read, empty, step_mark, batch_size, comm, all_reduce;
};

Event event(EventKind kind, collector::NameId cat, collector::NameId name, std::int64_t ts,
            std::uint32_t tid) {
  Event e;
  e.kind = kind;
  e.cat = cat;
  e.name = name;
  e.ts_ns = ts;
  e.tid = tid;
  return e;
}

void region(DecodedBatch& b, collector::NameId cat, collector::NameId name, std::int64_t start,
            std::int64_t end, std::uint32_t tid, std::uint32_t id) {
  Event begin = event(EventKind::kBegin, cat, name, start, tid);
  begin.region_id = id;
  b.events.push_back(begin);
  Event fin = event(EventKind::kEnd, cat, name, end, tid);
  fin.region_id = id;
  b.events.push_back(fin);
}

}  // namespace

TrainingLoad::TrainingLoad(const LoadShape& shape, collector::NameTable& names, std::int64_t t0_ns)
    : shape_(shape), t0_ns_(t0_ns) {
  const Names n{names.intern("loader"),       names.intern("fetch.iter"), names.intern("compute"),
                names.intern("step"),         names.intern("forward"),    names.intern("backward"),
                names.intern("ai_framework"), names.intern("optimizer"),  names.intern("gpu"),
                names.intern("kernel"),       names.intern("dataloader"), names.intern("collate"),
                names.intern("POSIX"),        names.intern("read"),       names.intern(""),
                names.intern("step"),         names.intern("batch_size"), names.intern("comm"),
                names.intern("all_reduce")};
  const collector::NameId cuda_runtime = names.intern("cuda_runtime");
  const collector::NameId launch_call = names.intern("cudaLaunchKernel");
  // With launches, one name per kernel of an iteration.
  const std::array<collector::NameId, 9> kernel_names{
      names.intern("void at::native::vectorized_elementwise_kernel<4>"),
      names.intern("ampere_sgemm_128x64_tn"),
      names.intern("ampere_sgemm_64x64_nn"),
      names.intern("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>"),
      names.intern("void at::native::reduce_kernel<512, 1>"),
      names.intern("memcpy HtoD"),
      names.intern("memset"),
      names.intern("void at::native::softmax_warp_forward<float>"),
      names.intern("void at::native::elementwise_kernel<128, 2>")};
  const int iterations = static_cast<int>(shape.slice_ns / kIteration);
  iterations_ = iterations;
  // Collectives share the last 900 us of backward; rank r arrives r % 8
  // tenths of a slot late, and every rank's call ends at 9/10 of the slot.
  const std::int64_t slot = shape.collectives > 0 ? 900 * kUs / shape.collectives : 0;
  for (int r = 0; r < shape.ranks; ++r) {
    const std::int32_t pid = 10'000 + 10 * r;
    for (int p = 0; p < 3; ++p) {
      DecodedBatch b;
      b.source.job = "bench";
      b.source.rank = r;
      b.source.host = "node-" + std::to_string(r / 8);
      b.source.pid = pid + p;
      b.source.ppid = p == 0 ? 1 : pid;
      b.source.agent_version = "0.1.0";
      b.source.start_ns = t0_ns;
      b.source.role = p == 0 ? stallwatch::ProcessRole::kMain : stallwatch::ProcessRole::kWorker;
      const auto tid = static_cast<std::uint32_t>(pid + p);
      std::uint32_t id = 1;
      for (int i = 0; i < iterations; ++i) {
        const std::int64_t at = i * kIteration;
        if (p == 0) {
          Event mark = event(EventKind::kMark, n.empty, n.step_mark, at, tid);
          mark.value = i;
          b.events.push_back(mark);
          region(b, n.loader, n.fetch_iter, at, at + 2000 * kUs, tid, id++);
          const std::uint32_t step_id = id++;
          Event step = event(EventKind::kBegin, n.compute, n.step, at + 2000 * kUs, tid);
          step.region_id = step_id;
          b.events.push_back(step);
          region(b, n.compute, n.forward, at + 2000 * kUs, at + 5000 * kUs, tid, id++);
          const std::uint32_t backward_id = id++;
          Event backward = event(EventKind::kBegin, n.compute, n.backward, at + 5000 * kUs, tid);
          backward.region_id = backward_id;
          b.events.push_back(backward);
          for (int k = 0; k < shape.collectives; ++k) {
            const std::int64_t from = at + 8000 * kUs + k * slot;
            region(b, n.comm, n.all_reduce, from + (r % 8) * slot / 10, from + slot * 9 / 10, tid,
                   id++);
          }
          Event backward_end = event(EventKind::kEnd, n.compute, n.backward, at + 9000 * kUs, tid);
          backward_end.region_id = backward_id;
          b.events.push_back(backward_end);
          region(b, n.framework, n.optimizer, at + 9000 * kUs, at + 9900 * kUs, tid, id++);
          Event step_end = event(EventKind::kEnd, n.compute, n.step, at + 9900 * kUs, tid);
          step_end.region_id = step_id;
          b.events.push_back(step_end);
          for (std::size_t k = 0; k < kernel_names.size(); ++k) {
            const std::int64_t start = at + 2100 * kUs + static_cast<std::int64_t>(k) * 850 * kUs;
            Event kernel = event(EventKind::kComplete, n.gpu,
                                 shape.launches ? kernel_names[k] : n.kernel, start, tid + 5000);
            kernel.dur_ns = 700 * kUs;
            if (shape.launches) {
              // The call ends 50 us before its kernel starts; ids repeat in
              // every slice, each paired within its batch.
              Event call =
                  event(EventKind::kComplete, cuda_runtime, launch_call, start - 60 * kUs, tid);
              call.dur_ns = 10 * kUs;
              call.region_id = kernel.region_id = static_cast<std::uint32_t>(i * 9 + k + 1);
              call.flags = kernel.flags = wire::kEventFlagCorrelation;
              b.events.push_back(call);
            }
            b.events.push_back(kernel);
          }
        } else {
          const std::int64_t shift = (p - 1) * 120 * kUs;
          region(b, n.dataloader, n.collate, at + shift, at + shift + 9800 * kUs, tid, id++);
          for (int k = 0; k < shape.reads_per_worker; ++k) {
            Event read = event(EventKind::kComplete, n.posix, n.read,
                               at + shift + 100 * kUs + k * 250 * kUs, tid);
            read.dur_ns = 200 * kUs;
            b.events.push_back(read);
          }
        }
      }
      b.sent_at_ns = shape.slice_ns;
      events_per_slice_ += b.events.size();
      batches_.push_back(std::move(b));
    }
  }
  for (auto& b : batches_) {
    b.sent_at_ns += t0_ns;
    for (auto& e : b.events)
      e.ts_ns += t0_ns;
  }
}

const std::vector<DecodedBatch>& TrainingLoad::slice(std::int64_t index) {
  const std::int64_t delta = (index - current_) * shape_.slice_ns;
  if (delta != 0) {
    for (auto& b : batches_) {
      b.sent_at_ns += delta;
      b.seq = static_cast<std::uint64_t>(index);
      for (auto& e : b.events) {
        e.ts_ns += delta;
        if (e.kind == EventKind::kMark) e.value += (index - current_) * iterations_;
      }
    }
    current_ = index;
  }
  return batches_;
}

std::int64_t TrainingLoad::slice_end_ns(std::int64_t index) const {
  return t0_ns_ + (index + 1) * shape_.slice_ns;
}

}  // namespace stallwatch::bench
