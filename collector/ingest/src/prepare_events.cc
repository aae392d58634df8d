// SPDX-License-Identifier: MIT
// BatchDecoder::prepare_events: stallwatchd's one pass over a frame's events
// (check each against the protocol rules, classify it, gather the Complete
// regions for the engine, copy only the events the engine walks one by one).

#include <bit>

#include "engine/time_math.h"
#include "ingest/batch_decoder.h"
#include "ingest/frame_validator.h"
#include "stallwatch/event_flags.h"
#include "wire_events.h"

namespace stallwatch::collector {
namespace {

constexpr ClassMask kFetchBit = class_bit(EventClass::kFetch);

// pair_ids_: a pair no event has named yet in this frame (pack_ids never
// gives it: the source bits are 0).
constexpr std::uint64_t kUnknownPair = ~std::uint64_t{0};
// The most strings a frame may have for the walk to use pair_ids_ (at most
// 256 x 256 pairs, 1 MiB; a frame touches only the pairs it names).
constexpr std::size_t kMaxPairStrings = 256;

// Both timeline ids of the names of `e`, [main thread].
std::array<std::uint64_t, 2> pair_ids(BatchPreparer& preparer, const WireEvents& events,
                                      const WireEvent& e) {
  return preparer.timeline_ids(events.name_id(e.cat), events.name_id(e.name));
}

}  // namespace

std::optional<FrameError> BatchDecoder::prepare_events(BatchPreparer& preparer, DecodedBatch& batch,
                                                       PreparedBatch& prepared) {
  // A frame with at most 256 strings (an agent's frame names a few dozen) has
  // each (cat, name) pair's masks and timeline ids read from pair_ids_, by
  // the frame's own string indices, filled at the pair's first event: no
  // name-id lookup, hash or pack per event. Its loop stops at the first bad
  // event, so the events it prepares keep the rules; then with sent_at_ns
  // in this range their times lie within ±kTimeLimit and are not clamped.
  const std::size_t strings = events_->string_count();
  const std::int64_t sent_at = batch.sent_at_ns;
  if (strings <= kMaxPairStrings && sent_at >= 0 &&
      sent_at <=
          detail::kTimeLimit - FrameValidator::kMaxEventLeadNs - FrameValidator::kMaxDurationNs) {
    pair_shift_ = strings <= 1 ? 0u : static_cast<unsigned>(std::bit_width(strings - 1));
    // Forget the pairs of the frame before: only those it filled.
    for (const std::uint32_t k : pair_filled_)
      pair_ids_[k] = {kUnknownPair, kUnknownPair};
    pair_filled_.clear();
    const std::size_t cells = std::size_t{1} << (2 * pair_shift_);
    if (pair_ids_.size() < cells) pair_ids_.resize(cells, {kUnknownPair, kUnknownPair});
    return finish(walk<true>(preparer, batch, prepared));
  }
  return finish(walk<false>(preparer, batch, prepared));
}

const std::array<std::uint64_t, 2>& BatchDecoder::fill_pair(BatchPreparer& preparer, std::size_t k,
                                                            std::size_t i) {
  pair_ids_[k] = pair_ids(preparer, *events_, events_->raw(i));
  pair_filled_.push_back(static_cast<std::uint32_t>(k));
  return pair_ids_[k];
}

// Returns whether an event broke a rule (`batch` and `out` are then
// unspecified).
template <bool Pairs>
bool BatchDecoder::walk(BatchPreparer& preparer, DecodedBatch& batch, PreparedBatch& out) {
  const WireEvents events = *events_;
  const std::size_t n = events.size();
  const std::uint64_t main_tid = BatchPreparer::main_thread_of(batch.source);
  std::vector<Event>& kept = batch.events;
  kept.clear();
  std::array<std::uint64_t, 2>* const pairs = pair_ids_.data();
  const unsigned shift = pair_shift_;
  bool bad = false;
  PreparedBatch::Builder builder(out, n);
  // Event i is kept for the engine (read again: the loop keeps few).
  const auto keep = [&](std::size_t i, ClassMask mask) {
    builder.keep(static_cast<std::uint32_t>(kept.size()), mask);
    kept.push_back(events.event(events.raw(i)));
  };
  for (std::size_t i = 0; i < n; ++i) {
    events.prefetch_ahead(i);
    const WireEvent e = events.raw(i);
    if constexpr (Pairs) {
      if (events.bad(e)) [[unlikely]] {
        bad = true;
        break;
      }
    } else {
      bad |= events.bad(e);
    }
    const auto kind = static_cast<EventKind>(e.kind);
    if (kind != EventKind::kComplete && kind != EventKind::kBegin) [[unlikely]] {
      keep(i, 0);
      continue;
    }
    const bool main = e.tid == main_tid;
    std::uint64_t ids;
    if constexpr (Pairs) {
      const std::size_t k = (std::size_t{e.cat} << shift) | e.name;
      ids = pairs[k][main ? 1 : 0];
      if (ids == kUnknownPair) [[unlikely]]
        ids = fill_pair(preparer, k, i)[main ? 1 : 0];
    } else {
      ids = pair_ids(preparer, events, e)[main ? 1 : 0];
    }
    const ClassMask mask = PreparedBatch::Builder::mask_of(ids);
    if (kind != EventKind::kComplete) [[unlikely]] {
      keep(i, mask);
      continue;
    }
    if constexpr (Pairs)
      builder.add_clamped(e.ts_ns, e.ts_ns + e.dur_ns, e.tid, ids);
    else
      builder.add(e.ts_ns, e.dur_ns, e.tid, ids);
    if ((main && (mask & kFetchBit)) ||
        (e.flags & (wire::kEventFlagCompleteValue | wire::kEventFlagCorrelation))) [[unlikely]]
      keep(i, mask);
  }
  if (bad) {
    builder.finish(batch.sent_at_ns);
    out.clear();  // with the unions it filled
    return true;
  }
  if (!builder.finish_compact(batch.sent_at_ns)) {
    // A region past sent_at: the engine walks the whole batch (its rules
    // were checked above).
    events.decode_all(batch.events);
    preparer.prepare(batch, out);
  }
  return false;
}

}  // namespace stallwatch::collector
