// SPDX-License-Identifier: MIT
#include "ingest/batch_encoder.h"

#include <stallwatch/protocol.h>

#include <string_view>
#include <vector>

#include "stallwatch_generated.h"

namespace stallwatch::collector {

struct BatchEncoder::Impl {
  // Per batch: NameId -> wire string index, valid where stamp == generation.
  struct Slot {
    std::uint64_t stamp = 0;
    std::uint16_t index = 0;
  };

  flatbuffers::FlatBufferBuilder builder{64 * 1024};
  std::vector<Slot> slots;
  std::uint64_t generation = 0;
  std::vector<NameId> wire_names;  // wire string index -> NameId
  std::vector<wire::Event> events;
  std::vector<flatbuffers::Offset<flatbuffers::String>> string_offsets;

  // Returns false when the batch needs more than kMaxStringsPerBatch names.
  bool index_of(NameId id, std::uint16_t& index) {
    if (id >= slots.size()) slots.resize(id + 1);
    Slot& slot = slots[id];
    if (slot.stamp != generation) {
      if (wire_names.size() >= wire::kMaxStringsPerBatch) return false;
      slot.stamp = generation;
      slot.index = static_cast<std::uint16_t>(wire_names.size());
      wire_names.push_back(id);
    }
    index = slot.index;
    return true;
  }

  flatbuffers::Offset<flatbuffers::String> string_or_null(const std::string& str) {
    return str.empty() ? 0 : builder.CreateString(str);
  }
};

BatchEncoder::BatchEncoder() : impl_(std::make_unique<Impl>()) {}
BatchEncoder::~BatchEncoder() = default;

EncodedFrame BatchEncoder::encode(const DecodedBatch& batch, const NameTable& names) {
  Impl& impl = *impl_;
  if (batch.events.size() > wire::kMaxEventsPerBatch) {
    return {{},
            std::to_string(batch.events.size()) + " events, more than " +
                std::to_string(wire::kMaxEventsPerBatch) + " per batch"};
  }
  for (const std::string* str :
       {&batch.source.job, &batch.source.host, &batch.source.agent_version}) {
    if (str->size() > wire::kMaxStringBytes) {
      return {{},
              "source string of " + std::to_string(str->size()) + " bytes, more than " +
                  std::to_string(wire::kMaxStringBytes)};
    }
  }

  ++impl.generation;
  impl.wire_names.clear();
  impl.events.clear();
  impl.events.reserve(batch.events.size());
  for (const Event& event : batch.events) {
    std::uint16_t cat = 0;
    std::uint16_t name = 0;
    if (!impl.index_of(event.cat, cat) || !impl.index_of(event.name, name)) {
      return {{},
              "more than " + std::to_string(wire::kMaxStringsPerBatch) +
                  " distinct names in one batch"};
    }
    impl.events.emplace_back(event.ts_ns, event.dur_ns, event.value, event.region_id, event.tid,
                             cat, name, static_cast<wire::EventKind>(event.kind), event.flags);
  }

  flatbuffers::FlatBufferBuilder& builder = impl.builder;
  builder.Clear();
  impl.string_offsets.clear();
  for (NameId id : impl.wire_names) {
    const std::string_view str = names.str(id);
    if (str.size() > wire::kMaxStringBytes) {
      return {{},
              "name of " + std::to_string(str.size()) + " bytes, more than " +
                  std::to_string(wire::kMaxStringBytes)};
    }
    impl.string_offsets.push_back(builder.CreateString(str.data(), str.size()));
  }
  const auto strings = builder.CreateVector(impl.string_offsets);
  const auto events = builder.CreateVectorOfStructs(impl.events.data(), impl.events.size());
  const auto job = impl.string_or_null(batch.source.job);
  const auto host = impl.string_or_null(batch.source.host);
  const auto agent_version = impl.string_or_null(batch.source.agent_version);
  const auto source = wire::CreateSource(
      builder, job, batch.source.rank, host, batch.source.pid, batch.source.ppid, agent_version,
      batch.source.start_ns, static_cast<wire::ProcessRole>(batch.source.role),
      static_cast<wire::DeviceSource>(batch.source.device_source));
  const auto root =
      wire::CreateBatch(builder, wire::kProtocolVersion, source, batch.seq, batch.sent_at_ns,
                        strings, events, batch.dropped_since_last, batch.final);
  wire::FinishBatchBuffer(builder, root);

  if (builder.GetSize() > wire::kMaxFrameBytes) {
    return {{},
            "frame of " + std::to_string(builder.GetSize()) + " bytes, more than " +
                std::to_string(wire::kMaxFrameBytes)};
  }
  return {{builder.GetBufferPointer(), builder.GetSize()}, {}};
}

}  // namespace stallwatch::collector
