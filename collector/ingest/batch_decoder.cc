#include "ingest/batch_decoder.h"

#include <stallwatch/protocol.h>

#include <cstring>
#include <string_view>

#include "ingest/frame_validator.h"
#include "stallwatch_generated.h"

namespace stallwatch::collector {
namespace {

void assign(std::string& to, const flatbuffers::String* from) {
  if (from == nullptr) {
    to.clear();
  } else {
    to.assign(from->data(), from->size());
  }
}

void decode_source(const wire::Source& from, SourceInfo& to) {
  assign(to.job, from.job());
  to.rank = from.rank();
  assign(to.host, from.host());
  to.pid = from.pid();
  to.ppid = from.ppid();
  assign(to.agent_version, from.agent_version());
  to.start_ns = from.start_ns();
  to.role = static_cast<ProcessRole>(from.role());
  to.device_source = static_cast<DeviceSource>(from.device_source());
}

}  // namespace

BatchDecoder::BatchDecoder(NameTable& names, std::mutex* names_mutex)
    : names_(names), names_mutex_(names_mutex), string_ids_(std::size_t{1} << 16, 0) {}

std::span<const std::uint8_t> BatchDecoder::aligned(std::span<const std::uint8_t> frame) {
  if (reinterpret_cast<std::uintptr_t>(frame.data()) % FrameValidator::kFrameAlignment == 0) {
    return frame;
  }
  aligned_.resize((frame.size() + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t));
  std::memcpy(aligned_.data(), frame.data(), frame.size());
  return {reinterpret_cast<const std::uint8_t*>(aligned_.data()), frame.size()};
}

NameId BatchDecoder::intern(std::string_view name) {
  if (names_mutex_ == nullptr) return names_.intern(name);
  if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  NameId id = 0;
  {
    std::lock_guard lock(*names_mutex_);
    id = names_.intern(name);
  }
  // An overflowed name is not cached: the table stays the one place that counts them.
  if (id == NameTable::kOverflow) return id;
  if (cache_.size() >= kMaxCachedNames) {
    cache_.clear();
    cached_names_.clear();
  }
  cache_.emplace(cached_names_.emplace_back(name), id);
  return id;
}

std::optional<FrameError> BatchDecoder::decode(std::span<const std::uint8_t> frame,
                                               DecodedBatch& out) {
  ++stats_.frames_received;
  stats_.bytes_received += frame.size();
  // Oversized frames are rejected before anything is copied.
  if (frame.size() <= wire::kMaxFrameBytes) frame = aligned(frame);
  if (auto error = FrameValidator::validate_except_events(frame)) {
    ++stats_.invalid(error->reason);
    return error;
  }

  const wire::Batch& batch = *wire::GetBatch(frame.data());
  const auto* strings = batch.strings();
  const std::size_t string_count = strings == nullptr ? 0 : strings->size();
  const auto* events = batch.events();
  const std::size_t count = events == nullptr ? 0 : events->size();

  // A valid frame may name strings that no event uses; they are interned like
  // the rest, so interning before the events are checked admits nothing new.
  // string_ids_ has an entry for every 16-bit index, so the copy below can
  // look up an index before it is known to be in range.
  for (std::size_t i = 0; i < string_count; ++i) {
    const flatbuffers::String* str = strings->Get(static_cast<flatbuffers::uoffset_t>(i));
    string_ids_[i] = intern(std::string_view(str->data(), str->size()));
  }

  // The per-event rules are checked as the events are copied: one pass.
  out.events.resize(count);
  const FrameValidator::EventLimits limits(string_count, batch.sent_at_ns());
  bool bad = false;
  for (std::size_t i = 0; i < count; ++i) {
    const wire::Event& from = *events->Get(static_cast<flatbuffers::uoffset_t>(i));
    bad |= limits.bad(from);
    Event& to = out.events[i];
    to.ts_ns = from.ts_ns();
    to.dur_ns = from.dur_ns();
    to.value = from.value();
    to.region_id = from.region_id();
    to.tid = from.tid();
    to.cat = string_ids_[from.cat()];
    to.name = string_ids_[from.name()];
    to.kind = static_cast<EventKind>(from.kind());
    to.flags = from.flags();
  }
  if (bad) {
    auto error = FrameValidator::first_bad_event(frame);
    if (!error) error = FrameError{FrameErrorReason::kSemantic, "an event breaks a protocol rule"};
    ++stats_.invalid(error->reason);
    return error;
  }

  out.protocol_version = batch.protocol_version();
  decode_source(*batch.source(), out.source);
  out.seq = batch.seq();
  out.sent_at_ns = batch.sent_at_ns();
  out.dropped_since_last = batch.dropped_since_last();
  out.final = batch.final();
  stats_.events_received += count;
  return std::nullopt;
}

}  // namespace stallwatch::collector
