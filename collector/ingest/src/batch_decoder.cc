// SPDX-License-Identifier: MIT
#include "ingest/batch_decoder.h"

#include <stallwatch/protocol.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ingest/frame_validator.h"
#include "stallwatch_generated.h"
#include "wire_events.h"

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

// WireEvents reads the generated struct's bytes as a WireEvent.
static_assert(sizeof(wire::Event) == sizeof(WireEvent) && alignof(wire::Event) <= 8);
static_assert(std::endian::native == std::endian::little,
              "WireEvent reads the wire's little-endian scalars in place");

bool wire_event_layout_matches() {
  const wire::Event probe(1, 2, 3, 4, 5, 6, 7, wire::EventKind::Counter, 9);
  WireEvent e;
  std::memcpy(&e, &probe, sizeof(e));
  return e.ts_ns == 1 && e.dur_ns == 2 && e.value == 3 && e.region_id == 4 && e.tid == 5 &&
         e.cat == 6 && e.name == 7 &&
         e.kind == static_cast<std::uint8_t>(wire::EventKind::Counter) && e.flags == 9;
}

}  // namespace

BatchDecoder::BatchDecoder(NameTable& names, std::mutex* names_mutex)
    : names_(names),
      names_mutex_(names_mutex),
      events_(std::make_unique<WireEvents>()),
      string_ids_(std::size_t{1} << 16, 0) {
  // A build whose generated code disagrees with WireEvent would misread
  // every event: refuse to run at all.
  static const bool layout_ok = wire_event_layout_matches();
  if (!layout_ok) {
    std::fputs("stallwatch: WireEvent does not match the generated wire::Event layout\n", stderr);
    std::abort();
  }
}

BatchDecoder::~BatchDecoder() = default;

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

std::optional<FrameError> BatchDecoder::decode_header(std::span<const std::uint8_t> frame,
                                                      DecodedBatch& out) {
  WireEvents& events = *events_;
  events = WireEvents{};
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
  const auto* wire_events = batch.events();

  // A valid frame may name strings that no event uses; they are interned like
  // the rest, so interning before the events are checked admits nothing new.
  // string_ids_ has an entry for every 16-bit index, so an event's index can
  // be looked up before it is known to be in range.
  for (std::size_t i = 0; i < string_count; ++i) {
    const flatbuffers::String* str = strings->Get(static_cast<flatbuffers::uoffset_t>(i));
    string_ids_[i] = intern(std::string_view(str->data(), str->size()));
  }

  events.bytes_ = wire_events == nullptr ? nullptr : wire_events->Data();
  events.size_ = wire_events == nullptr ? 0 : wire_events->size();
  events.ids_ = string_ids_.data();
  events.limits_ = FrameValidator::EventLimits(string_count, batch.sent_at_ns());
  events.frame_ = frame;

  out.protocol_version = batch.protocol_version();
  decode_source(*batch.source(), out.source);
  out.seq = batch.seq();
  out.sent_at_ns = batch.sent_at_ns();
  out.dropped_since_last = batch.dropped_since_last();
  out.final = batch.final();
  return std::nullopt;
}

std::optional<FrameError> BatchDecoder::finish(bool any_bad) {
  const WireEvents& events = *events_;
  if (any_bad) {
    auto error = FrameValidator::first_bad_event(events.frame_);
    if (!error) error = FrameError{FrameErrorReason::kSemantic, "an event breaks a protocol rule"};
    ++stats_.invalid(error->reason);
    return error;
  }
  stats_.events_received += events.size();
  return std::nullopt;
}

std::optional<FrameError> BatchDecoder::decode(std::span<const std::uint8_t> frame,
                                               DecodedBatch& out) {
  if (auto error = decode_header(frame, out)) return error;
  // The per-event rules are checked as the events are copied: one pass.
  return finish(events_->decode_all(out.events));
}

std::optional<FrameError> BatchDecoder::decode_prepared(std::span<const std::uint8_t> frame,
                                                        BatchPreparer& preparer, DecodedBatch& out,
                                                        PreparedBatch& prepared) {
  if (auto error = decode_header(frame, out)) return error;
  return prepare_events(preparer, out, prepared);
}

}  // namespace stallwatch::collector
