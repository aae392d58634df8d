// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/cell_data.h"
#include "engine/decoded_batch.h"
#include "engine/event_class.h"
#include "engine/name_table.h"
#include "engine/span_union.h"
#include "engine/time_math.h"
#include "engine/timeline_store.h"

namespace stallwatch::collector {

namespace detail {
class ClassCache;
class BatchCoverage;
}  // namespace detail

// The part of Engine::ingest that needs only the batch, done ahead of it on
// another thread (stallwatchd's receive thread), so the thread that holds the
// engine's lock does less per event:
//   - each event's class mask (the engine's mapping, main-thread bit from the
//     batch's own role and pid);
//   - for the Complete regions, which are most of a batch:
//       - the union of their intervals, one SpanUnion per metric class mask,
//         unclipped; the engine clips them at its lower bound, which
//         commutes with the union;
//       - their timeline entries, as one TimelineBlock the rank's timeline
//         adopts whole;
//       - their earliest start, so the engine counts late ones only when
//         there can be some;
//     plus the list of events the engine must still look at one by one
//     (`special`): every event that is not Complete, and the main thread's
//     Complete fetches (they end steps), in batch order.
//   The engine uses these only when `regions_ready`: no region reaches past
//   the batch's sent_at (the engine clips regions at the source's
//   watermark, which it alone knows). Otherwise it walks the batch as usual,
//   with the masks.
// Engine::ingest gives the same results with or without it (the engine's
// property tests run both against the oracle).
//
// Filled by BatchPreparer::prepare() from a DecodedBatch, or by a reader that
// walks the batch's events itself in another form (ingest's one-pass decoder
// of wire frames) through a Builder.
class PreparedBatch {
 public:
  // A ClassMask as stored here: not a character type, so a store of one
  // does not force the compiler to assume everything else may have changed.
  enum class StoredMask : std::uint8_t {};

  class Builder;

  // Whether it was prepared for a batch of `events` events (a compact
  // batch's: the events it kept).
  bool matches(std::size_t events) const { return ready_ && masks_.size() == events; }
  // The batch holds only the events the engine looks at one by one
  // (`special()` lists them all); the batch is then good only together with
  // this.
  bool compact() const { return compact_; }
  // How many events the batch had on the wire, kept or not.
  std::size_t event_count() const { return event_count_; }
  const std::vector<StoredMask>& masks() const { return masks_; }
  bool regions_ready() const { return regions_ready_; }
  // With regions_ready: the events to look at one by one, by index.
  const std::vector<std::uint32_t>& special() const { return special_; }
  // With regions_ready: the earliest start of a Complete region (clamped).
  std::int64_t min_complete_ts() const { return min_complete_ts_; }
  // Moves the prepared intervals into `to`, clipped at `lower`; leaves this
  // with none (and with `to`'s former empty lists, so capacity is reused).
  void move_spans_to(detail::BatchCoverage& to, std::int64_t lower);
  // The Complete regions' timeline entries, their sources 0.
  detail::TimelineBlock& timeline() { return timeline_; }
  void clear();

 private:
  friend class BatchPreparer;
  void clear_regions();
  bool ready_ = false;
  bool regions_ready_ = false;
  bool compact_ = false;
  std::size_t event_count_ = 0;
  std::uint64_t used_ = 0;  // bit m: spans_[m] is not empty
  std::int64_t min_complete_ts_ = 0;
  std::vector<StoredMask> masks_;
  std::vector<std::uint32_t> special_;
  detail::TimelineBlock timeline_;
  std::array<detail::SpanUnion, detail::kMaskBins> spans_{};
};

// Fills one PreparedBatch during a single walk over a batch's events, its
// state in locals while the loop runs (the hot methods are inline):
//
//   PreparedBatch::Builder b(out, n);        // clears `out`
//   for each event: b.add(...) for a Complete region, b.keep(mask) for an
//                   event the engine must walk one by one, else b.mask(mask)
//   b.finish(sent_at) ...
//
// Either every event gets a mask (mask() or keep(): the batch is walked
// whole) or only the kept ones do (a compact batch, finish_compact()).
class PreparedBatch::Builder {
 public:
  Builder(PreparedBatch& out, std::size_t events)
      : out_(out), spans_(out.spans_), timeline_(begin(out, events)) {}
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // A Complete event (times as on the wire) with timeline ids `ids`
  // (TimelineBlock::pack_ids: the class mask in the top byte).
  [[gnu::always_inline]] void add(std::int64_t ts_ns, std::int64_t dur_ns, std::uint32_t tid,
                                  std::uint64_t ids) {
    const std::int64_t ts = detail::clamp_time(ts_ns);
    add_clamped(ts, detail::saturating_end(ts, dur_ns), tid, ids);
  }
  // The same for times already within ±kTimeLimit, `end` >= `ts`.
  [[gnu::always_inline]] void add_clamped(std::int64_t ts, std::int64_t end, std::uint32_t tid,
                                          std::uint64_t ids) {
    first_ts_ = std::min(first_ts_, ts);
    const auto metric = static_cast<ClassMask>(mask_of(ids) & detail::kMetricClasses);
    if (metric != 0 && ts < end) spans_[metric].add(ts, end);
    timeline_.append(ts, end, tid, ids);
  }
  // The next event's mask, for a batch walked whole.
  void mask(ClassMask mask) { out_.masks_.push_back(StoredMask{mask}); }
  // The next event is one the engine walks one by one, at `index` in the
  // batch it is given with.
  void keep(std::uint32_t index, ClassMask mask) {
    out_.masks_.push_back(StoredMask{mask});
    out_.special_.push_back(index);
  }
  // Writable masks for a batch of `n` events walked whole, each written
  // once (prepare()'s loop), instead of mask() per event.
  StoredMask* masks(std::size_t n) {
    out_.masks_.resize(n);
    return out_.masks_.data();
  }

  static ClassMask mask_of(std::uint64_t ids) { return static_cast<ClassMask>(ids >> 56); }

  // Ends the walk. Returns whether the regions are ready (none ends past
  // `sent_at_ns`); if not, clears them (the engine walks the whole batch).
  // The batch is prepared either way.
  bool finish(std::int64_t sent_at_ns);
  // finish() for a batch whose kept events are all there is of it (the
  // caller copied only those): true when ready; if not, `out` is cleared
  // and the caller prepares the whole batch instead.
  bool finish_compact(std::int64_t sent_at_ns);

 private:
  static detail::TimelineBlock& begin(PreparedBatch& out, std::size_t events) {
    out.clear();
    out.event_count_ = events;
    out.timeline_.reserve(events);
    return out.timeline_;
  }

  PreparedBatch& out_;
  std::array<detail::SpanUnion, detail::kMaskBins>& spans_;
  detail::TimelineBlock::Appender timeline_;
  std::int64_t first_ts_ = std::numeric_limits<std::int64_t>::max();
};

// Prepares batches for one Engine (Engine::make_preparer()), on one thread
// at a time, concurrently with the engine. Reads the engine's NameTable only
// for a (category, name) pair it has not classified before, under
// `names_mutex` (the lock the engine's owner holds around it and around
// interning).
class BatchPreparer {
 public:
  BatchPreparer(const ClassMapping& mapping, const NameTable& names, std::mutex* names_mutex);
  ~BatchPreparer();
  BatchPreparer(BatchPreparer&&) noexcept;
  BatchPreparer& operator=(BatchPreparer&&) noexcept;

  void prepare(const DecodedBatch& batch, PreparedBatch& out);

  // The timeline ids (TimelineBlock::pack_ids, class mask in the top byte)
  // of an event named (cat, name): [0] on another thread, [1] on its
  // process's main thread. For a Builder's caller; one cache probe.
  std::array<std::uint64_t, 2> timeline_ids(NameId cat, NameId name);

  // The thread id that is a batch's main thread (kNoThread for a worker
  // process: no tid equals it).
  static constexpr std::uint64_t kNoThread = std::uint64_t{1} << 32;
  static std::uint64_t main_thread_of(const SourceInfo& source) {
    return source.role == ProcessRole::kMain ? static_cast<std::uint32_t>(source.pid) : kNoThread;
  }

 private:
  std::unique_ptr<detail::ClassCache> classes_;
};

}  // namespace stallwatch::collector
