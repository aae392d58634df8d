#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/cell_data.h"
#include "engine/event_class.h"
#include "engine/span_union.h"
#include "engine/timeline_store.h"
#include "ingest/decoded_batch.h"
#include "ingest/name_table.h"
#include "ingest/wire_events.h"

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
class PreparedBatch {
 public:
  // A ClassMask as stored here: not a character type, so a store of one
  // does not force the compiler to assume everything else may have changed.
  enum class StoredMask : std::uint8_t {};

  // Whether it was prepared for a batch of `events` events (a compact
  // batch's: the events it kept).
  bool matches(std::size_t events) const { return ready_ && masks_.size() == events; }
  // The batch's events were decoded by prepare_wire() and only those the
  // engine looks at one by one kept (`special()` lists them all); the
  // batch is then good only together with this.
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

  // Decodes a frame's events and prepares them in the same pass, for the
  // daemon's receive thread: `batch` (its header from
  // BatchDecoder::decode_header) receives only the events the engine walks
  // one by one, so the Complete regions, most of a batch, are never copied
  // into it. Every event is checked against the protocol rules on the way;
  // returns whether one broke them (for BatchDecoder::finish; `batch` and
  // `out` are then unspecified). When the regions cannot be prepared (see
  // `regions_ready`), decodes every event and prepares as prepare() does.
  bool prepare_wire(const WireEvents& events, DecodedBatch& batch, PreparedBatch& out);

 private:
  struct Regions;
  // prepare_wire's loop; `Pairs`: whether it reads each event's masks and
  // timeline ids from pair_ids_ (see prepare_wire).
  template <bool Pairs>
  bool walk_wire(const WireEvents& events, DecodedBatch& batch, PreparedBatch& out);
  // Entry k of pair_ids_, filled from the names of event i, its first event
  // (read again, so the loop keeps its event in registers).
  [[gnu::noinline]] const std::array<std::uint64_t, 2>& fill_pair(std::size_t k,
                                                                  const WireEvents& events,
                                                                  std::size_t i);
  std::unique_ptr<detail::ClassCache> classes_;
  // For the frame being prepared, by (cat index << pair_shift_) | name
  // index: the timeline ids (TimelineBlock::pack_ids, so with the class
  // mask in the top byte) of an event on another thread and on the main
  // thread; kUnknownPair until the pair's first event.
  std::vector<std::array<std::uint64_t, 2>> pair_ids_;
  std::vector<std::uint32_t> pair_filled_;  // the entries this frame filled
  unsigned pair_shift_ = 0;
};

}  // namespace stallwatch::collector
