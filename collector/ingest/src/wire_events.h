// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"
#include "ingest/frame_validator.h"

namespace stallwatch::collector {

// One wire Event as it lies in a frame: the layout of the schema's
// `struct Event` (40 bytes, little-endian; batch_decoder.cc checks it against
// the generated code). No FlatBuffers types.
struct WireEvent {
  std::int64_t ts_ns;
  std::int64_t dur_ns;
  std::int64_t value;
  std::uint32_t region_id;
  std::uint32_t tid;
  std::uint16_t cat;   // index into the batch's strings
  std::uint16_t name;  // index into the batch's strings
  std::uint8_t kind;
  std::uint8_t flags;
  std::uint8_t padding[2];
};
static_assert(sizeof(WireEvent) == 40);

// The events of a frame that BatchDecoder::decode_header() accepted, read in
// place: BatchDecoder's own walks over them (decode()'s copy of every event,
// prepare_events()' one pass that keeps only what the engine needs) check
// every event with bad() and report the result to BatchDecoder::finish().
// Private to ingest: nothing outside it sees the wire layout.
//
// Valid until the decoder's next decode or decode_header, and while the frame
// lives.
class WireEvents {
 public:
  std::size_t size() const { return size_; }
  // How many strings the frame has (an event's valid cat and name indices
  // are below it).
  std::size_t string_count() const { return limits_.string_count; }
  // Event i's fields, copied out of the frame one by one (a loop that uses
  // only some of them then keeps those in registers, where a copy of the
  // whole struct is made in memory first).
  WireEvent raw(std::size_t i) const {
    const std::uint8_t* const p = bytes_ + i * sizeof(WireEvent);
    WireEvent e;
    read(p, e.ts_ns, offsetof(WireEvent, ts_ns));
    read(p, e.dur_ns, offsetof(WireEvent, dur_ns));
    read(p, e.value, offsetof(WireEvent, value));
    read(p, e.region_id, offsetof(WireEvent, region_id));
    read(p, e.tid, offsetof(WireEvent, tid));
    read(p, e.cat, offsetof(WireEvent, cat));
    read(p, e.name, offsetof(WireEvent, name));
    read(p, e.kind, offsetof(WireEvent, kind));
    read(p, e.flags, offsetof(WireEvent, flags));
    e.padding[0] = e.padding[1] = 0;
    return e;
  }
  // Asks for event i + kPrefetchAhead's line ahead of its use (a frame has
  // just been written by the ZeroMQ I/O thread, often on another core).
  void prefetch_ahead(std::size_t i) const {
    if (i + kPrefetchAhead < size_)
      __builtin_prefetch(bytes_ + (i + kPrefetchAhead) * sizeof(WireEvent));
  }
  // True when `e` breaks a per-event rule (FrameValidator::EventLimits).
  bool bad(const WireEvent& e) const {
    return limits_.bad(e.cat, e.name, e.kind, e.dur_ns, e.ts_ns);
  }
  // The collector-wide id of a string index; any 16-bit index may be looked
  // up (an index out of range, which bad() reports, reads as the empty name).
  NameId name_id(std::uint16_t index) const { return ids_[index]; }
  Event event(const WireEvent& e) const {
    Event to;
    to.ts_ns = e.ts_ns;
    to.dur_ns = e.dur_ns;
    to.value = e.value;
    to.region_id = e.region_id;
    to.tid = e.tid;
    to.cat = ids_[e.cat];
    to.name = ids_[e.name];
    to.kind = static_cast<EventKind>(e.kind);
    to.flags = e.flags;
    return to;
  }
  // Every event, as decode() copies them; checks the rules on the way and
  // returns whether one was broken.
  bool decode_all(std::vector<Event>& out) const {
    out.resize(size_);
    Event* const to = out.data();
    bool broken = false;
    for (std::size_t i = 0; i < size_; ++i) {
      const WireEvent e = raw(i);
      broken |= bad(e);
      to[i] = event(e);
    }
    return broken;
  }

 private:
  friend class BatchDecoder;
  static constexpr std::size_t kPrefetchAhead = 32;
  template <typename T>
  static void read(const std::uint8_t* p, T& to, std::size_t offset) {
    std::memcpy(&to, p + offset, sizeof(T));
  }
  const std::uint8_t* bytes_ = nullptr;
  std::size_t size_ = 0;
  const NameId* ids_ = nullptr;  // 65536 entries
  FrameValidator::EventLimits limits_{0, 0};
  std::span<const std::uint8_t> frame_;  // aligned, for finish()
};

}  // namespace stallwatch::collector
