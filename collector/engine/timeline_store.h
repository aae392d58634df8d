#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
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
// they arrived (not clipped, not sorted: the view sorts on a query), every
// class included. Kept for the last `keep_ns` before the rank's watermark and
// at most `max_entries` of each; when the bound pushes a region out early,
// queries over its time say `truncated`.
//
// A region is stored in 24 bytes: its start, tid, duration as 32-bit
// nanoseconds, and cat, name, source and mask packed in one word. Names with
// an id of 2^20 or more (beyond NameTable's default bound) read back as
// "<overflow>"; the end of a region longer than 2^32 - 2 ns (about 4.3 s) is
// kept aside, exactly.
//
// Single-threaded; owned by one RankTracker.
class TimelineStore {
 public:
  TimelineStore(std::int64_t keep_ns, std::size_t max_entries)
      : keep_ns_(keep_ns), regions_(max_entries), marks_(max_entries) {}

  [[gnu::always_inline]] void add_region(const TimelineEntry& e) {
    const bool full = regions_.full();
    Packed& slot = regions_.push_slot();
    if (full) {
      if (slot.duration != kLong) [[likely]] {
        dropped_end_ = std::max(dropped_end_, slot.start_ns + slot.duration);
      } else {
        drop_long_front();
      }
    }
    const std::int64_t length = e.end_ns - e.start_ns;
    if (length >= 0 && length < kLong) [[likely]] {
      slot.duration = static_cast<std::uint32_t>(length);
    } else {
      slot.duration = kLong;
      long_ends_.push_back(LongEnd{pushed_, e.end_ns});
    }
    slot.start_ns = e.start_ns;
    slot.tid = e.tid;
    slot.ids = pack(e.cat, e.name, e.source, e.mask);
    ++pushed_;
  }
  void add_mark(const TimelineMarkEntry& m) {
    if (marks_.full()) dropped_end_ = std::max(dropped_end_, marks_.front().ts_ns);
    marks_.push(m);
  }
  // Drops what ended before watermark - keep_ns.
  void expire(std::int64_t watermark_ns);

  std::size_t region_count() const { return regions_.size(); }
  // Region i, oldest first.
  TimelineEntry region(std::size_t i) const;
  const RingBuffer<TimelineMarkEntry>& marks() const { return marks_; }
  // True when something at or after `from_ns` was dropped for space.
  bool truncated_since(std::int64_t from_ns) const { return dropped_end_ > from_ns; }
  std::size_t bytes() const {
    return regions_.bytes() + marks_.bytes() + long_ends_.size() * sizeof(LongEnd);
  }

 private:
  static constexpr std::uint32_t kLong = std::numeric_limits<std::uint32_t>::max();
  static constexpr NameId kNameLimit = NameId{1} << 20;

  struct Packed {
    std::int64_t start_ns;
    std::uint32_t tid;
    std::uint32_t duration;  // kLong: the end is in long_ends_
    std::uint64_t ids;       // cat | name << 20 | source << 40 | mask << 56
  };
  static_assert(sizeof(Packed) == 24);
  struct LongEnd {
    std::uint64_t seq;  // the region's push sequence number
    std::int64_t end_ns;
  };

  static std::uint64_t pack(NameId cat, NameId name, std::uint16_t source, ClassMask mask) {
    const std::uint64_t c = cat < kNameLimit ? cat : NameTable::kOverflow;
    const std::uint64_t n = name < kNameLimit ? name : NameTable::kOverflow;
    return c | (n << 20) | (std::uint64_t{source} << 40) | (std::uint64_t{mask} << 56);
  }
  std::uint64_t first_seq() const { return pushed_ - regions_.size(); }
  std::int64_t end_of(const Packed& p, std::uint64_t seq) const;
  // Notes the end of the oldest region, a long one, which is being
  // overwritten, and forgets that end.
  void drop_long_front();

  std::int64_t keep_ns_;
  std::int64_t dropped_end_ = std::numeric_limits<std::int64_t>::min();
  RingBuffer<Packed> regions_;
  std::uint64_t pushed_ = 0;
  std::deque<LongEnd> long_ends_;  // by seq, for regions still in regions_
  RingBuffer<TimelineMarkEntry> marks_;
};

}  // namespace stallwatch::collector::detail
