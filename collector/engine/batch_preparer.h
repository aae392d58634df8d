#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/cell_data.h"
#include "engine/event_class.h"
#include "engine/span_union.h"
#include "ingest/decoded_batch.h"
#include "ingest/name_table.h"

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
//   - the union of the Complete regions' intervals, one SpanUnion per metric
//     class mask, unclipped; the engine clips them at its lower bound, which
//     commutes with the union. It does so only when no region reaches past
//     the batch's sent_at (the engine clips regions at the source's
//     watermark, which it alone knows); otherwise `spans_ready` is false and
//     the engine adds the regions one by one as usual.
// Engine::ingest gives the same results with or without it (the engine's
// property tests run both against the oracle).
class PreparedBatch {
 public:
  // A ClassMask as stored here: not a character type, so a store of one
  // does not force the compiler to assume everything else may have changed.
  enum class StoredMask : std::uint8_t {};

  // Whether it was prepared for a batch of `events` events.
  bool matches(std::size_t events) const { return ready_ && masks_.size() == events; }
  const std::vector<StoredMask>& masks() const { return masks_; }
  bool spans_ready() const { return spans_ready_; }
  // Moves the prepared intervals into `to`, clipped at `lower`; leaves this
  // with none (and with `to`'s former empty lists, so capacity is reused).
  void move_spans_to(detail::BatchCoverage& to, std::int64_t lower);
  void clear();

 private:
  friend class BatchPreparer;
  void clear_spans();
  bool ready_ = false;
  bool spans_ready_ = false;
  std::uint64_t used_ = 0;  // bit m: spans_[m] is not empty
  std::vector<StoredMask> masks_;
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

 private:
  std::unique_ptr<detail::ClassCache> classes_;
};

}  // namespace stallwatch::collector
