#pragma once

// The collector's in-memory form of one wire Batch, after validation. This is
// what the engine consumes, from the ZeroMQ ingest and from trace replay
// alike. No FlatBuffers or ZeroMQ types appear here.

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/name_table.h"

namespace stallwatch::collector {

enum class EventKind : std::uint8_t { kBegin = 0, kEnd = 1, kComplete = 2, kMark = 3, kCounter = 4 };

enum class ProcessRole : std::uint8_t { kMain = 0, kWorker = 1 };

// What the source says its device-busy events come from (wire DeviceSource).
enum class DeviceSource : std::uint8_t { kNone = 0, kCupti = 1, kCudaEvents = 2, kNvml = 3 };

inline constexpr std::uint8_t kEventValueIsDouble = 1;  // Event::flags bit

struct SourceInfo {
  std::string job;
  std::int32_t rank = 0;
  std::string host;
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::string agent_version;
  std::int64_t start_ns = 0;
  ProcessRole role = ProcessRole::kMain;
  DeviceSource device_source = DeviceSource::kNone;

  bool operator==(const SourceInfo&) const = default;
};

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
