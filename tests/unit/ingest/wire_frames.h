// SPDX-License-Identifier: MIT
#pragma once

// Test helpers: hand-built wire frames, valid or broken on purpose, using the
// FlatBuffers API directly (BatchEncoder only builds valid frames).

#include <stallwatch/protocol.h>

#include <cstdint>
#include <string>
#include <vector>

#include "stallwatch_generated.h"

namespace stallwatch::collector::testing {

inline constexpr std::int64_t kSentAtNs = 1'700'000'000'000'000'000;

struct RawBatch {
  std::uint32_t protocol_version = wire::kProtocolVersion;
  bool with_source = true;
  std::string job = "job-1";
  std::string host = "host-a";
  std::string agent_version = "0.1.0";
  std::int64_t sent_at_ns = kSentAtNs;
  std::vector<std::string> strings = {"compute", "forward", "dataloader", "fetch"};
  std::vector<wire::Event> events = {
      wire::Event(kSentAtNs - 2'000'000, 1'000'000, 0, 0, 7, 0, 1, wire::EventKind::Complete, 0),
      wire::Event(kSentAtNs - 1'000'000, 0, 0, 3, 7, 2, 3, wire::EventKind::Begin, 0),
  };
};

inline std::vector<std::uint8_t> build_frame(const RawBatch& raw) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  for (const auto& str : raw.strings)
    strings.push_back(builder.CreateString(str));
  const auto strings_vector = builder.CreateVector(strings);
  const auto events = builder.CreateVectorOfStructs(raw.events.data(), raw.events.size());
  flatbuffers::Offset<wire::Source> source = 0;
  if (raw.with_source) {
    source = wire::CreateSourceDirect(builder, raw.job.empty() ? nullptr : raw.job.c_str(), 0,
                                      raw.host.c_str(), 42, 1, raw.agent_version.c_str());
  }
  // By hand rather than CreateBatch, whose Finish() asserts on a missing source.
  const auto start = builder.StartTable();
  builder.AddElement<std::uint32_t>(wire::Batch::VT_PROTOCOL_VERSION, raw.protocol_version, 0);
  if (raw.with_source) builder.AddOffset(wire::Batch::VT_SOURCE, source);
  builder.AddElement<std::int64_t>(wire::Batch::VT_SENT_AT_NS, raw.sent_at_ns, 0);
  builder.AddOffset(wire::Batch::VT_STRINGS, strings_vector);
  builder.AddOffset(wire::Batch::VT_EVENTS, events);
  const flatbuffers::Offset<wire::Batch> root(builder.EndTable(start));
  wire::FinishBatchBuffer(builder, root);
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

// A frame of another major version whose only field is the version.
inline std::vector<std::uint8_t> build_header_only_frame(std::uint32_t protocol_version) {
  flatbuffers::FlatBufferBuilder builder;
  const auto header = wire::CreateBatchHeader(builder, protocol_version);
  builder.Finish(header, wire::BatchIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

}  // namespace stallwatch::collector::testing
