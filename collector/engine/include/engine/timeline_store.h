// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "engine/event_class.h"
#include "engine/name_table.h"
#include "engine/ring_buffer.h"

namespace stallwatch::collector::detail {

struct TimelineEntry {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  NameId cat = NameTable::kEmpty;
  NameId name = NameTable::kEmpty;
  std::uint32_t tid = 0;
  std::uint16_t source = 0;  // index into the rank's sources
  ClassMask mask = 0;
  bool loop_end = false;  // a wait that ended its loop (END marked kEndLoopExhausted)
};

struct TimelineMarkEntry {
  std::int64_t ts_ns = 0;
  std::int64_t value = 0;
  NameId name = NameTable::kEmpty;
  std::uint32_t tid = 0;
  std::uint16_t source = 0;
};

// A run of closed regions in arrival order, as the TimelineStore keeps them.
// Built by the store itself, or ahead of the engine by the BatchPreparer
// (for one batch's Complete regions, on another thread) and then handed
// over whole, so the thread under the engine's lock does not copy them.
//
// A region is stored in 24 bytes: its start, tid, duration as 32-bit
// nanoseconds, and cat, name, source, mask and the loop-end flag packed in
// one word (the mask's top bit, which no class uses, is the flag). Names with
// an id of 2^20 or more (beyond NameTable's default bound) read back as
// "<overflow>"; the end of a region longer than 2^32 - 2 ns (about 4.3 s) is
// kept aside, exactly. The latest end of every 64 regions is kept too, so
// expiry and drops pass over whole chunks, and the indices of its COMM
// regions, so the peer matching reads those without a scan.
class TimelineBlock {
 public:
  static constexpr std::size_t kChunk = 64;

  TimelineBlock() = default;
  TimelineBlock(TimelineBlock&&) noexcept = default;
  TimelineBlock& operator=(TimelineBlock&&) noexcept = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  // Room for `n` regions in all (append needs it: it does not grow).
  void reserve(std::size_t n);
  // Empties it; keeps its storage.
  void clear() {
    size_ = 0;
    longs_.clear();
    comm_.clear();
  }
  // Frees the storage beyond its size.
  void shrink();

  // Appends a region; needs capacity() > size().
  [[gnu::always_inline]] void append(const TimelineEntry& e) {
    const std::size_t i = size_++;
    Packed& slot = entries_[i];
    const std::int64_t length = e.end_ns - e.start_ns;
    if (length >= 0 && length < kLong) [[likely]] {
      slot.duration = static_cast<std::uint32_t>(length);
    } else {
      slot.duration = kLong;
      longs_.push_back(LongEnd{i, e.end_ns});
    }
    slot.start_ns = e.start_ns;
    slot.tid = e.tid;
    slot.ids = pack(e.cat, e.name, e.source, e.mask) | (e.loop_end ? kLoopEndBit : 0);
    if (e.mask & kCommMask) [[unlikely]]
      comm_.push_back(static_cast<std::uint32_t>(i));
    std::int64_t& chunk = chunk_end_[i / kChunk];
    chunk = i % kChunk == 0 || e.end_ns > chunk ? e.end_ns : chunk;
  }

  // Appends many regions with the block's state in locals (registers), for
  // a loop that appends one region per event: append() as above, the chunk
  // ends kept as it goes. The block is updated by finish(), which must come
  // before anything else uses it. Needs capacity() >= size() + the regions
  // appended.
  class Appender;
  // A region's names, source and mask as Appender::append takes them.
  static std::uint64_t pack_ids(NameId cat, NameId name, ClassMask mask) {
    return pack(cat, name, 0, mask);
  }

  // Region i; its source is OR-ed with `source` (the store's tag for a block
  // prepared without knowing its source).
  TimelineEntry entry(std::size_t i, std::uint16_t source = 0) const;
  std::int64_t start_of(std::size_t i) const { return entries_[i].start_ns; }
  ClassMask mask_of(std::size_t i) const {
    return static_cast<ClassMask>((entries_[i].ids >> 56) & 0x7F);
  }
  std::int64_t end_of(std::size_t i) const {
    const Packed& p = entries_[i];
    if (p.duration != kLong) [[likely]]
      return p.start_ns + p.duration;
    return long_end(i);
  }
  // The latest end among regions [from, to).
  std::int64_t max_end(std::size_t from, std::size_t to) const;
  // The first region at or after `from` that ends at or after `cutoff`
  // (size() when none).
  std::size_t first_ending_from(std::size_t from, std::int64_t cutoff) const;
  // The indices of its regions with the COMM class, ascending.
  const std::vector<std::uint32_t>& comm_indices() const { return comm_; }
  std::size_t bytes() const {
    return capacity_ * sizeof(Packed) + chunks(capacity_) * sizeof(std::int64_t) +
           longs_.capacity() * sizeof(LongEnd) + comm_.capacity() * sizeof(std::uint32_t);
  }

 private:
  static constexpr std::uint32_t kLong = std::numeric_limits<std::uint32_t>::max();
  static constexpr NameId kNameLimit = NameId{1} << 20;
  static constexpr std::uint64_t kLoopEndBit = std::uint64_t{1} << 63;
  static constexpr ClassMask kCommMask = class_bit(EventClass::kComm);
  static constexpr std::uint64_t kCommIdsBit = std::uint64_t{kCommMask} << 56;
  static_assert(kEventClassCount < 8, "the mask's top bit is the loop-end flag");

  struct Packed {
    std::int64_t start_ns;
    std::uint32_t tid;
    std::uint32_t duration;  // kLong: the end is in longs_
    std::uint64_t ids;       // cat | name << 20 | source << 40 | mask << 56
  };
  static_assert(sizeof(Packed) == 24);
  struct LongEnd {
    std::size_t index;
    std::int64_t end_ns;
  };

  static std::uint64_t pack(NameId cat, NameId name, std::uint16_t source, ClassMask mask) {
    const std::uint64_t c = cat < kNameLimit ? cat : NameTable::kOverflow;
    const std::uint64_t n = name < kNameLimit ? name : NameTable::kOverflow;
    return c | (n << 20) | (std::uint64_t{source} << 40) | (std::uint64_t{mask} << 56);
  }
  static std::size_t chunks(std::size_t n) { return (n + kChunk - 1) / kChunk; }
  std::int64_t long_end(std::size_t i) const;
  void reallocate(std::size_t capacity);

  // Raw storage, not vectors: append writes a slot without a capacity check
  // and reserve does not zero what append will overwrite.
  std::unique_ptr<Packed[]> entries_;
  std::unique_ptr<std::int64_t[]> chunk_end_;  // latest end of entries [64 c, 64 c + 64)
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::vector<LongEnd> longs_;  // by index
  std::vector<std::uint32_t> comm_;
};

class TimelineBlock::Appender {
 public:
  explicit Appender(TimelineBlock& block)
      : block_(block), entries_(block.entries_.get()), size_(block.size_) {
    if (size_ % kChunk != 0) chunk_max_ = block.chunk_end_[size_ / kChunk];
  }
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;

  // `ids` from pack_ids(); the region's source is 0.
  [[gnu::always_inline]] void append(std::int64_t start_ns, std::int64_t end_ns, std::uint32_t tid,
                                     std::uint64_t ids) {
    Packed& slot = entries_[size_];
    const std::int64_t length = end_ns - start_ns;
    std::uint32_t duration = static_cast<std::uint32_t>(length);
    if (static_cast<std::uint64_t>(length) >= kLong) [[unlikely]] {
      duration = kLong;
      block_.longs_.push_back(LongEnd{size_, end_ns});
    }
    if (ids & kCommIdsBit) [[unlikely]]
      block_.comm_.push_back(static_cast<std::uint32_t>(size_));
#if defined(__x86_64__)
    // Non-temporal stores: the block is read back much later, if at all
    // (most regions leave the timeline unread), so it is written past the
    // caches, without first reading each line in.
    static_assert(offsetof(Packed, tid) == 8 && offsetof(Packed, duration) == 12 &&
                  offsetof(Packed, ids) == 16);
    auto* words = reinterpret_cast<long long*>(&slot);
    _mm_stream_si64(words, start_ns);
    _mm_stream_si64(words + 1, static_cast<long long>(tid | (std::uint64_t{duration} << 32)));
    _mm_stream_si64(words + 2, static_cast<long long>(ids));
#else
    slot.start_ns = start_ns;
    slot.tid = tid;
    slot.duration = duration;
    slot.ids = ids;
#endif
    chunk_max_ = end_ns > chunk_max_ ? end_ns : chunk_max_;
    if (++size_ % kChunk == 0) {
      block_.chunk_end_[size_ / kChunk - 1] = chunk_max_;
      chunk_max_ = std::numeric_limits<std::int64_t>::min();
    }
  }
  void finish() {
#if defined(__x86_64__)
    _mm_sfence();  // the streamed stores are ordered before whatever publishes the block
#endif
    block_.size_ = size_;
    if (size_ % kChunk != 0) block_.chunk_end_[size_ / kChunk] = chunk_max_;
  }

 private:
  TimelineBlock& block_;
  Packed* const entries_;
  std::size_t size_;
  std::int64_t chunk_max_ = std::numeric_limits<std::int64_t>::min();
};

// The storage of blocks that the ranks' timelines dropped whole, kept for
// the next batches a BatchPreparer fills. A rank's timeline gives back a
// block's worth of storage per batch only on average (a batch that cuts into
// the oldest block drops none, the next drops two), so without a pool about
// every other batch would take a new block from malloc on the preparing
// thread and free one on the engine's.
//
// The small blocks a store fills itself (TimelineStore's own) are kept
// apart, for the stores: each batch starts one after the block it adopted,
// and drops old ones unevenly too.
//
// Single-threaded scratch shared by all ranks of an Engine, like its
// BatchCoverage; holds at most kMaxBlocks of each kind.
class TimelineBlockPool {
 public:
  static constexpr std::size_t kMaxBlocks = 8;

  // Keeps `block`'s storage, emptied, when there is room; else frees it.
  void give(TimelineBlock&& block) { keep(blocks_, std::move(block)); }
  // Moves a block's storage into `to` when `to` has none.
  void refill(TimelineBlock& to) { take(blocks_, to); }
  // The same for a store's own blocks.
  void give_own(TimelineBlock&& block) { keep(own_, std::move(block)); }
  void refill_own(TimelineBlock& to) { take(own_, to); }

  std::size_t size() const { return blocks_.size(); }
  std::size_t own_size() const { return own_.size(); }
  std::size_t bytes() const;

 private:
  static void keep(std::vector<TimelineBlock>& list, TimelineBlock&& block);
  static void take(std::vector<TimelineBlock>& list, TimelineBlock& to);

  std::vector<TimelineBlock> blocks_;
  std::vector<TimelineBlock> own_;
};

// The raw closed regions and marks of one rank for the timeline view, as
// they arrived (not clipped, not sorted: the view sorts on a query), every
// class included. Kept for the last `keep_ns` before the rank's watermark and
// at most `max_entries` of each (regions: from each trim(), which the rank
// calls after each batch); the oldest go first, and when the bound pushes a
// region out early, queries over its time say `truncated`.
//
// What the peer matching reads at every tick is kept apart as it arrives, so
// that it is read without a scan of the rest: the COMM regions (indexed in
// their blocks) and the marks named `step_mark` (in a list of their own,
// which drops each with the mark).
//
// Regions are kept in blocks: the store's own, filled one region at a time,
// and whole blocks a BatchPreparer built, adopted without a copy.
//
// Single-threaded; owned by one RankTracker.
class TimelineStore {
 public:
  // Blocks smaller than this are copied into the store's own.
  static constexpr std::size_t kAdoptMin = 256;

  // `pool`, when given, receives the storage of every block dropped whole,
  // for the next batches to reuse; it must outlive the store.
  TimelineStore(std::int64_t keep_ns, std::size_t max_entries, TimelineBlockPool* pool = nullptr,
                NameId step_mark = NameTable::kEmpty)
      : keep_ns_(keep_ns),
        max_entries_(max_entries < 1 ? 1 : max_entries),
        pool_(pool),
        step_mark_(step_mark),
        marks_(max_entries) {}

  // Appends a region. The bound on the count applies at trim(); past it by
  // a block's worth, the oldest go now (the same ones trim() would drop),
  // so a block's storage is reused instead of allocated.
  [[gnu::always_inline]] void add_region(const TimelineEntry& e) {
    if (own_ == nullptr || own_->size() == kOwnBlock) [[unlikely]] {
      if (live_ > max_entries_ + kOwnBlock) drop_oldest(live_ - max_entries_);
      start_own_block();
    }
    own_->append(e);
    ++live_;
  }
  // Appends all of `block`'s regions, from source `source` (their own source
  // fields are 0), and leaves `block` empty. The bound applies at trim().
  void add_block(TimelineBlock& block, std::uint16_t source);
  // Drops the oldest regions beyond the bound.
  void trim() {
    if (live_ > max_entries_) drop_oldest(live_ - max_entries_);
  }
  void add_mark(const TimelineMarkEntry& m) {
    if (marks_.full()) {
      dropped_end_ = std::max(dropped_end_, marks_.front().ts_ns);
      pop_step_mark();
    }
    marks_.push(m);
    if (m.name == step_mark_ && step_mark_ != NameTable::kEmpty) {
      const bool before =
          !step_marks_.empty() && StepMark::less(m.ts_ns, m.value, step_marks_.back());
      step_marks_.push_back({marks_pushed_, m.ts_ns, m.value, before});
      step_marks_unsorted_ += before ? 1 : 0;
    }
    ++marks_pushed_;
  }
  // Drops what ended before watermark - keep_ns, from the oldest up to the
  // first that did not.
  void expire(std::int64_t watermark_ns);

  std::size_t region_count() const { return live_; }
  // Own blocks allocated so far (storage reused not counted).
  std::size_t own_blocks_allocated() const { return own_allocated_; }
  // Region i, oldest first (walks the blocks: for tests).
  TimelineEntry region(std::size_t i) const;
  // Calls f(const TimelineEntry&) for each region, oldest first.
  template <class F>
  void for_each_region(F&& f) const {
    for (const Held& h : blocks_) {
      for (std::size_t i = h.begin; i < h.block.size(); ++i)
        f(h.block.entry(i, h.source));
    }
  }
  // Calls f(start_ns, end_ns) for each region with a class in `mask`, oldest
  // first; reads only those regions' times (cheaper than for_each_region).
  template <class F>
  void for_each_span_of(ClassMask mask, F&& f) const {
    for (const Held& h : blocks_) {
      for (std::size_t i = h.begin; i < h.block.size(); ++i) {
        if (h.block.mask_of(i) & mask) f(h.block.start_of(i), h.block.end_of(i));
      }
    }
  }
  // Calls f(start_ns, end_ns) for each COMM region, oldest first; reads only
  // those (for_each_span_of(COMM) without the scan).
  template <class F>
  void for_each_comm_span(F&& f) const {
    for (const Held& h : blocks_) {
      const auto& comm = h.block.comm_indices();
      auto it = comm.begin();
      if (h.begin > 0) it = std::lower_bound(comm.begin(), comm.end(), h.begin);
      for (; it != comm.end(); ++it)
        f(h.block.start_of(*it), h.block.end_of(*it));
    }
  }
  const RingBuffer<TimelineMarkEntry>& marks() const { return marks_; }
  // The marks named `step_mark` that marks() holds, oldest first.
  struct StepMark {
    std::uint64_t seq = 0;  // its number among all marks ever added
    std::int64_t ts_ns = 0;
    std::int64_t value = 0;
    bool before_previous = false;  // it came after one it orders before
    static bool less(std::int64_t ts_ns, std::int64_t value, const StepMark& m) {
      return ts_ns != m.ts_ns ? ts_ns < m.ts_ns : value < m.value;
    }
  };
  const std::deque<StepMark>& step_marks() const { return step_marks_; }
  // True when step_marks() is in (ts_ns, value) order (false may also mean
  // that the one out of order has gone since).
  bool step_marks_sorted() const { return step_marks_unsorted_ == 0; }
  // True when something at or after `from_ns` was dropped for space.
  bool truncated_since(std::int64_t from_ns) const { return dropped_end_ > from_ns; }
  std::size_t bytes() const;

 private:
  // Regions in one of the store's own blocks: small, so a block that is
  // mostly expired holds little memory.
  static constexpr std::size_t kOwnBlock = 256;

  struct Held {
    TimelineBlock block;
    std::size_t begin = 0;     // regions before it are gone
    std::uint16_t source = 0;  // OR-ed into each region's source
    std::size_t live() const { return block.size() - begin; }
  };

  void start_own_block();
  // Drops the `n` oldest regions for space.
  void drop_oldest(std::size_t n);
  // Drops the oldest block; its storage goes to own_spare_ (one of the
  // store's own) or to the pool.
  void pop_front();
  // Drops the front of step_marks_ if it is marks_' front.
  void pop_step_mark() {
    if (step_marks_.empty() || step_marks_.front().seq != marks_pushed_ - marks_.size()) return;
    step_marks_unsorted_ -= step_marks_.front().before_previous ? 1 : 0;
    step_marks_.pop_front();
  }

  std::int64_t keep_ns_;
  std::size_t max_entries_;
  TimelineBlockPool* pool_;
  std::int64_t dropped_end_ = std::numeric_limits<std::int64_t>::min();
  std::deque<Held> blocks_;
  TimelineBlock* own_ = nullptr;  // blocks_.back() when it is the store's own
  TimelineBlock own_spare_;       // storage of the last own block dropped, for the next
  std::size_t live_ = 0;
  std::size_t own_allocated_ = 0;
  NameId step_mark_;
  RingBuffer<TimelineMarkEntry> marks_;
  std::uint64_t marks_pushed_ = 0;
  std::deque<StepMark> step_marks_;
  std::size_t step_marks_unsorted_ = 0;  // of step_marks_, those before_previous
};

}  // namespace stallwatch::collector::detail
