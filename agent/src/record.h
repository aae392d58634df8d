// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::agent {

// Values match wire::EventKind (schema/stallwatch.fbs); the encoder checks it.
enum class RecordKind : std::uint8_t {
  kBegin = 0,
  kEnd = 1,
  kComplete = 2,
  kMark = 3,
  kCounter = 4,
  // Agent-only: a call timed whole (sw_call_end). `ts` is its start in
  // ticks, `value` its payload, `region_id` its duration in ticks and
  // `reserved` its subject (a name id). Sent as a Complete with
  // kRecordCompleteValue, `region_id` = the subject.
  kCall = 5
};

inline constexpr std::uint8_t kRecordValueIsDouble = 1;  // wire EventFlags::ValueIsDouble
inline constexpr std::uint8_t kRecordCompleteValue = 2;  // wire::kEventFlagCompleteValue
// Record::reserved bit, never sent: `ts` is already Unix epoch nanoseconds (a
// BEGIN or END on a device lane, timed by the device, not by this clock).
inline constexpr std::uint16_t kRecordTimeIsNs = 1;

// One event as the recording thread writes it into its ring: fixed 32 bytes,
// written once by the producer and read once by the sender. `ts` is in clock
// ticks (see ProcessClock) except for kComplete and records marked
// kRecordTimeIsNs, where it is already Unix epoch nanoseconds given by the
// caller. `cat` and `name` are process-wide name ids;
// the sender maps them to batch-local string indices.
struct Record {
  std::int64_t ts;
  std::int64_t value;  // payload; dur_ns for kComplete
  std::uint32_t region_id;
  std::uint32_t tid;  // recording thread, or for kEnd the thread that opened the region
  std::uint16_t cat;
  std::uint16_t name;
  RecordKind kind;
  std::uint8_t flags;
  std::uint16_t reserved;  // kRecordTimeIsNs, else 0; a kCall's subject
};

static_assert(sizeof(Record) == 32, "records are one half cache line");

}  // namespace stallwatch::agent
