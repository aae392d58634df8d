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

BatchDecoder::BatchDecoder(NameTable& names) : names_(names) {}

std::span<const std::uint8_t> BatchDecoder::aligned(std::span<const std::uint8_t> frame) {
  if (reinterpret_cast<std::uintptr_t>(frame.data()) % FrameValidator::kFrameAlignment == 0) {
    return frame;
  }
  aligned_.resize((frame.size() + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t));
  std::memcpy(aligned_.data(), frame.data(), frame.size());
  return {reinterpret_cast<const std::uint8_t*>(aligned_.data()), frame.size()};
}

std::optional<FrameError> BatchDecoder::decode(std::span<const std::uint8_t> frame,
                                               DecodedBatch& out) {
  ++stats_.frames_received;
  stats_.bytes_received += frame.size();
  // Oversized frames are rejected before anything is copied.
  if (frame.size() <= wire::kMaxFrameBytes) frame = aligned(frame);
  if (auto error = FrameValidator::validate(frame)) {
    ++stats_.invalid(error->reason);
    return error;
  }

  const wire::Batch& batch = *wire::GetBatch(frame.data());
  out.protocol_version = batch.protocol_version();
  decode_source(*batch.source(), out.source);
  out.seq = batch.seq();
  out.sent_at_ns = batch.sent_at_ns();
  out.dropped_since_last = batch.dropped_since_last();
  out.final = batch.final();

  string_ids_.clear();
  if (const auto* strings = batch.strings()) {
    for (const flatbuffers::String* str : *strings) {
      string_ids_.push_back(names_.intern(std::string_view(str->data(), str->size())));
    }
  }

  const auto* events = batch.events();
  const std::size_t count = events == nullptr ? 0 : events->size();
  out.events.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const wire::Event& from = *events->Get(static_cast<flatbuffers::uoffset_t>(i));
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
  stats_.events_received += count;
  return std::nullopt;
}

}  // namespace stallwatch::collector
