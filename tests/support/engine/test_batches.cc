// SPDX-License-Identifier: MIT
#include "test_batches.h"

#include <stdexcept>

#include "stallwatch/event_flags.h"

namespace stallwatch::collector::testing {

BatchBuilder::BatchBuilder(NameTable& names, std::string job, std::int32_t rank, std::int32_t pid,
                           ProcessRole role, std::string host)
    : names_(names) {
  batch_.source.job = std::move(job);
  batch_.source.rank = rank;
  batch_.source.host = std::move(host);
  batch_.source.pid = pid;
  batch_.source.ppid = 1;
  batch_.source.agent_version = "0.1.0";
  batch_.source.role = role;
  batch_.protocol_version = 1u << 16;
}

Event& BatchBuilder::add(EventKind kind, std::string_view cat, std::string_view name,
                         std::int64_t ts, std::uint32_t tid) {
  Event& e = batch_.events.emplace_back();
  e.kind = kind;
  e.cat = names_.intern(cat);
  e.name = names_.intern(name);
  e.ts_ns = ts;
  e.tid = tid == 0 ? main_tid() : tid;
  return e;
}

BatchBuilder& BatchBuilder::complete(std::string_view cat, std::string_view name, std::int64_t ts,
                                     std::int64_t dur, std::uint32_t tid) {
  add(EventKind::kComplete, cat, name, ts, tid).dur_ns = dur;
  return *this;
}

BatchBuilder& BatchBuilder::correlated(std::uint32_t correlation) {
  Event& e = batch_.events.back();
  e.region_id = correlation;
  e.flags = static_cast<std::uint8_t>(e.flags | wire::kEventFlagCorrelation);
  return *this;
}

BatchBuilder& BatchBuilder::call(std::string_view cat, std::string_view name, std::int64_t ts,
                                 std::int64_t dur, std::uint32_t file, std::int64_t bytes,
                                 std::uint32_t tid) {
  Event& e = add(EventKind::kComplete, cat, name, ts, tid);
  e.dur_ns = dur;
  e.flags |= wire::kEventFlagCompleteValue;
  e.region_id = file;
  e.value = bytes;
  return *this;
}

BatchBuilder& BatchBuilder::begin(std::string_view cat, std::string_view name, std::int64_t ts,
                                  std::uint32_t region_id, std::uint32_t tid, std::int64_t value) {
  Event& e = add(EventKind::kBegin, cat, name, ts, tid);
  e.region_id = region_id;
  e.value = value;
  return *this;
}

BatchBuilder& BatchBuilder::end(std::int64_t ts, std::uint32_t region_id, std::uint32_t tid,
                                std::int64_t value) {
  Event& e = add(EventKind::kEnd, "", "", ts, tid);
  e.region_id = region_id;
  e.value = value;
  return *this;
}

BatchBuilder& BatchBuilder::mark(std::string_view name, std::int64_t ts, std::int64_t value,
                                 std::uint32_t tid) {
  add(EventKind::kMark, "", name, ts, tid).value = value;
  return *this;
}

BatchBuilder& BatchBuilder::file_name(std::string_view path, std::uint32_t file, std::int64_t ts,
                                      std::uint32_t tid) {
  add(EventKind::kMark, "posix_file", path, ts, tid).value = file;
  return *this;
}

BatchBuilder& BatchBuilder::counter(std::string_view name, std::int64_t ts, std::int64_t value,
                                    std::uint32_t tid) {
  add(EventKind::kCounter, "", name, ts, tid).value = value;
  return *this;
}

DecodedBatch BatchBuilder::take(std::int64_t sent_at, bool final) {
  DecodedBatch out = batch_;
  out.seq = seq_++;
  out.sent_at_ns = sent_at;
  out.final = final;
  batch_.events.clear();
  batch_.dropped_since_last = 0;
  return out;
}

Harness::Harness(EngineConfig config) : engine(std::move(config), names) {}

BatchBuilder Harness::source(std::int32_t pid, ProcessRole role, std::string job,
                             std::int32_t rank) {
  BatchBuilder b(names, std::move(job), rank, pid, role);
  b.source().start_ns = kT0;
  return b;
}

EngineConfig small_config() {
  EngineConfig c;
  c.resolution_ns = ms(1);
  c.windows_ns = {ms(10), ms(30)};
  c.verdict_window_ns = ms(10);
  c.lateness_ns = ms(5);
  c.history_ns = ms(200);
  c.timeline_ns = ms(100);
  c.silent_after_ns = sec(10);
  c.forget_after_ns = sec(60);
  return c;
}

const RankSnapshot* find_rank(const Snapshot& s, std::string_view job, std::int32_t rank) {
  const JobSnapshot* j = s.find_job(job);
  if (j == nullptr) return nullptr;
  for (const auto& r : j->ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

const WindowMetrics& window(const RankSnapshot& r, std::int64_t window_ns) {
  for (const auto& w : r.windows) {
    if (w.window_ns == window_ns) return w;
  }
  throw std::out_of_range("no such window");
}

}  // namespace stallwatch::collector::testing
