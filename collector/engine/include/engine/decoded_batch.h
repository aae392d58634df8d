// SPDX-License-Identifier: MIT
#pragma once

// The collector's in-memory form of one wire Batch, after validation. This is
// what the engine consumes, from the ZeroMQ ingest and from trace replay
// alike. No FlatBuffers or ZeroMQ types appear here.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/name_table.h"
#include "stallwatch/source_info.h"

namespace stallwatch::collector {

enum class EventKind : std::uint8_t {
  kBegin = 0,
  kEnd = 1,
  kComplete = 2,
  kMark = 3,
  kCounter = 4
};

inline constexpr std::uint8_t kEventValueIsDouble = 1;  // Event::flags bit

// One event with its names resolved to collector-wide ids.
struct Event {
  std::int64_t ts_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t value = 0;
  std::uint32_t region_id = 0;
  std::uint32_t tid = 0;
  NameId cat = NameTable::kEmpty;
  NameId name = NameTable::kEmpty;
  EventKind kind = EventKind::kComplete;
  std::uint8_t flags = 0;

  bool operator==(const Event&) const = default;
};

struct DecodedBatch {
  SourceInfo source;
  std::uint32_t protocol_version = 0;
  std::uint64_t seq = 0;
  std::int64_t sent_at_ns = 0;
  std::uint64_t dropped_since_last = 0;
  bool final = false;
  std::vector<Event> events;  // reused between batches by the decoder

  bool operator==(const DecodedBatch&) const = default;
};

}  // namespace stallwatch::collector
