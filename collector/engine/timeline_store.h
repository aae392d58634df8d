#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "engine/event_class.h"
#include "engine/ring_buffer.h"
#include "ingest/name_table.h"

namespace stallwatch::collector::detail {

struct TimelineEntry {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  NameId cat = NameTable::kEmpty;
  NameId name = NameTable::kEmpty;
  std::uint32_t tid = 0;
  std::uint16_t source = 0;  // index into the rank's sources
  ClassMask mask = 0;
};

struct TimelineMarkEntry {
  std::int64_t ts_ns = 0;
  std::int64_t value = 0;
  NameId name = NameTable::kEmpty;
  std::uint32_t tid = 0;
  std::uint16_t source = 0;
};

// The raw closed regions and marks of one rank for the timeline view, as
// they arrived (not clipped), every class included. Kept for the last
// `keep_ns` before the rank's watermark and at most `max_entries` of each;
// when the bound pushes a region out early, queries over its time say
// `truncated`. Single-threaded; owned by one RankTracker.
class TimelineStore {
 public:
  TimelineStore(std::int64_t keep_ns, std::size_t max_entries)
      : keep_ns_(keep_ns), regions_(max_entries), marks_(max_entries) {}

  void add_region(const TimelineEntry& e) {
    if (auto out = regions_.push_back(e)) dropped_end_ = std::max(dropped_end_, out->end_ns);
  }
  void add_mark(const TimelineMarkEntry& m) {
    if (auto out = marks_.push_back(m)) dropped_end_ = std::max(dropped_end_, out->ts_ns);
  }
  // Drops what ended before watermark - keep_ns.
  void expire(std::int64_t watermark_ns);

  const RingBuffer<TimelineEntry>& regions() const { return regions_; }
  const RingBuffer<TimelineMarkEntry>& marks() const { return marks_; }
  // True when something at or after `from_ns` was dropped for space.
  bool truncated_since(std::int64_t from_ns) const { return dropped_end_ > from_ns; }
  std::size_t bytes() const { return regions_.bytes() + marks_.bytes(); }

 private:
  std::int64_t keep_ns_;
  std::int64_t dropped_end_ = std::numeric_limits<std::int64_t>::min();
  RingBuffer<TimelineEntry> regions_;
  RingBuffer<TimelineMarkEntry> marks_;
};

}  // namespace stallwatch::collector::detail
