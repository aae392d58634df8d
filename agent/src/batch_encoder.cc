// SPDX-License-Identifier: MIT
#include "batch_encoder.h"

#include <algorithm>
#include <utility>

#include "stallwatch/event_flags.h"
#include "stallwatch/protocol.h"
#include "stallwatch_generated.h"

namespace stallwatch::agent {
namespace {

static_assert(static_cast<int>(RecordKind::kBegin) == static_cast<int>(wire::EventKind::Begin));
static_assert(static_cast<int>(RecordKind::kEnd) == static_cast<int>(wire::EventKind::End));
static_assert(static_cast<int>(RecordKind::kComplete) ==
              static_cast<int>(wire::EventKind::Complete));
static_assert(static_cast<int>(RecordKind::kMark) == static_cast<int>(wire::EventKind::Mark));
static_assert(static_cast<int>(RecordKind::kCounter) == static_cast<int>(wire::EventKind::Counter));
static_assert(kRecordValueIsDouble == static_cast<int>(wire::EventFlags::ValueIsDouble));
static_assert(kRecordCompleteValue == wire::kEventFlagCompleteValue);
static_assert(static_cast<int>(ProcessRole::kWorker) ==
              static_cast<int>(wire::ProcessRole::Worker));
static_assert(static_cast<int>(DeviceSource::kNvml) == static_cast<int>(wire::DeviceSource::Nvml));
static_assert(sizeof(wire::Event) == 40);

constexpr std::size_t kEventBytes = sizeof(wire::Event);
constexpr std::size_t kStringOverheadBytes = 12;  // length prefix, NUL, padding, vector slot
constexpr std::size_t kFrameMarginBytes = 1024;
constexpr std::size_t kNameIds = std::size_t{NameTable::kMaxNames} + 1;

}  // namespace

struct BatchEncoder::Builder {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> strings_vector;
  flatbuffers::Offset<flatbuffers::Vector<const wire::Event*>> events_vector;
  flatbuffers::Offset<wire::Source> source;

  explicit Builder(std::size_t initial) : fbb(initial) {}
};

BatchEncoder::BatchEncoder(const NameTable& names, std::size_t max_events)
    : names_(names),
      max_events_(std::min(max_events, wire::kMaxEventsPerBatch)),
      slots_(kNameIds),
      builder_(std::make_unique<Builder>(max_events_ * kEventBytes + 64 * 1024)) {
  staged_.reserve(max_events_);
  batch_names_.reserve(1024);
  builder_->strings.reserve(1024);
  set_source(SourceInfo{});
}

BatchEncoder::~BatchEncoder() = default;

void BatchEncoder::set_source(SourceInfo source) {
  source_ = std::move(source);
  fixed_bytes_ = source_.job.size() + source_.host.size() + source_.agent_version.size() +
                 3 * kStringOverheadBytes + 256;
}

void BatchEncoder::reset() noexcept {
  staged_.clear();
  batch_names_.clear();
  string_bytes_ = 0;
  if (++generation_ == 0) {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    generation_ = 1;
  }
}

int BatchEncoder::add_name(std::uint16_t id) noexcept {
  const std::string_view name = names_.lookup(id);
  if (id != 0 && name.data() == nullptr) return local_index(0);  // never interned
  const std::size_t bytes = name.size() + kStringOverheadBytes;
  if (batch_names_.size() >= wire::kMaxStringsPerBatch ||
      fixed_bytes_ + string_bytes_ + bytes + (staged_.size() + 1) * kEventBytes >
          wire::kMaxFrameBytes - kFrameMarginBytes) {
    return -1;
  }
  // batch_names_ has reserved room for the common case; growing it past that
  // is the only allocation here, and failure just ends the batch.
  try {
    batch_names_.push_back(id);
  } catch (...) {
    return -1;
  }
  string_bytes_ += bytes;
  const auto index = static_cast<std::uint16_t>(batch_names_.size() - 1);
  slots_[id] = Slot{generation_, index};
  return index;
}

bool BatchEncoder::add(const Record& record) noexcept {
  if (staged_.size() >= max_events_ ||
      fixed_bytes_ + string_bytes_ + (staged_.size() + 1) * kEventBytes >
          wire::kMaxFrameBytes - kFrameMarginBytes) {
    return false;
  }
  const std::size_t names_before = batch_names_.size();
  const std::size_t bytes_before = string_bytes_;
  const int cat = local_index(record.cat);
  const int name = cat < 0 ? -1 : local_index(record.name);
  if (name < 0) {
    // Roll back a name the refused record added, so the batch stays exact.
    while (batch_names_.size() > names_before) {
      slots_[batch_names_.back()].generation = 0;
      batch_names_.pop_back();
    }
    string_bytes_ = bytes_before;
    return false;
  }
  staged_.push_back(Record{record.ts, record.value, record.region_id, record.tid,
                           static_cast<std::uint16_t>(cat), static_cast<std::uint16_t>(name),
                           record.kind, record.flags,
                           record.reserved});  // capacity reserved for max_events_
  return true;
}

void BatchEncoder::prepare(const TimeBase& time_base) {
  Builder& b = *builder_;
  b.fbb.Clear();
  wire::Event* events = nullptr;
  b.events_vector = b.fbb.CreateUninitializedVectorOfStructs(staged_.size(), &events);
  for (const Record& r : staged_) {
    if (r.kind == RecordKind::kCall) {
      const std::int64_t start = time_base.to_ns(r.ts);
      *events++ = wire::Event(start, time_base.to_ns(r.ts + r.region_id) - start, r.value,
                              r.reserved, r.tid, r.cat, r.name, wire::EventKind::Complete,
                              static_cast<std::uint8_t>(r.flags | kRecordCompleteValue));
      continue;
    }
    const bool complete = r.kind == RecordKind::kComplete;
    const bool ns = complete || (r.reserved & kRecordTimeIsNs) != 0;
    *events++ = wire::Event(ns ? r.ts : time_base.to_ns(r.ts), complete ? r.value : 0,
                            complete ? 0 : r.value, r.region_id, r.tid, r.cat, r.name,
                            static_cast<wire::EventKind>(r.kind), r.flags);
  }
  b.strings.clear();
  for (const std::uint16_t id : batch_names_) {
    const std::string_view name = names_.lookup(id);
    b.strings.push_back(b.fbb.CreateString(name.data() != nullptr ? name.data() : "", name.size()));
  }
  b.strings_vector = b.fbb.CreateVector(b.strings);
  b.source = wire::CreateSource(b.fbb, b.fbb.CreateString(source_.job), source_.rank,
                                b.fbb.CreateString(source_.host), source_.pid, source_.ppid,
                                b.fbb.CreateString(source_.agent_version), source_.start_ns,
                                static_cast<wire::ProcessRole>(source_.role),
                                static_cast<wire::DeviceSource>(source_.device_source));
}

std::span<const std::uint8_t> BatchEncoder::finish(std::uint64_t seq, std::int64_t sent_at_ns,
                                                   std::uint64_t dropped_since_last, bool final) {
  Builder& b = *builder_;
  const auto batch =
      wire::CreateBatch(b.fbb, wire::kProtocolVersion, b.source, seq, sent_at_ns, b.strings_vector,
                        b.events_vector, dropped_since_last, final);
  wire::FinishBatchBuffer(b.fbb, batch);
  return {b.fbb.GetBufferPointer(), b.fbb.GetSize()};
}

}  // namespace stallwatch::agent
