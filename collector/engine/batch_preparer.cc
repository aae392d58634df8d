#include "engine/batch_preparer.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "engine/batch_coverage.h"
#include "engine/class_cache.h"
#include "engine/time_math.h"

namespace stallwatch::collector {

void PreparedBatch::clear() {
  ready_ = false;
  compact_ = false;
  event_count_ = 0;
  masks_.clear();
  clear_regions();
}

void PreparedBatch::clear_regions() {
  for (std::uint64_t u = used_; u != 0; u &= u - 1)
    spans_[static_cast<std::size_t>(__builtin_ctzll(u))].clear();
  used_ = 0;
  special_.clear();
  timeline_.clear();
  regions_ready_ = false;
}

void PreparedBatch::move_spans_to(detail::BatchCoverage& to, std::int64_t lower) {
  for (std::uint64_t u = used_; u != 0; u &= u - 1) {
    const auto mask = static_cast<ClassMask>(__builtin_ctzll(u));
    detail::SpanUnion& spans = spans_[mask];
    spans.clip_below(lower);
    to.adopt(mask, spans);
  }
  used_ = 0;
}

BatchPreparer::BatchPreparer(const ClassMapping& mapping, const NameTable& names,
                             std::mutex* names_mutex)
    : classes_(std::make_unique<detail::ClassCache>(mapping, names, names_mutex)) {}

BatchPreparer::~BatchPreparer() = default;
BatchPreparer::BatchPreparer(BatchPreparer&&) noexcept = default;
BatchPreparer& BatchPreparer::operator=(BatchPreparer&&) noexcept = default;

// A batch's Complete regions as prepare() and prepare_wire() gather them:
// their union per metric class mask, their timeline block, their earliest
// start; state in locals while the batch is walked, written back by finish().
struct BatchPreparer::Regions {
  explicit Regions(PreparedBatch& out) : spans(out.spans_), timeline(out.timeline_) {}

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
    first_ts = std::min(first_ts, ts);
    const auto metric = static_cast<ClassMask>(mask_of(ids) & detail::kMetricClasses);
    if (metric != 0 && ts < end) spans[metric].add(ts, end);
    timeline.append(ts, end, tid, ids);
  }
  static ClassMask mask_of(std::uint64_t ids) { return static_cast<ClassMask>(ids >> 56); }

  // Whether the regions are ready (none ends past `sent_at_ns`); if not,
  // clears them from `out`.
  bool finish(PreparedBatch& out, std::int64_t sent_at_ns) {
    timeline.finish();
    std::uint64_t used = 0;
    for (std::size_t m = 1; m < spans.size(); ++m)
      used |= std::uint64_t{!spans[m].empty()} << m;
    out.used_ = used;
    out.min_complete_ts_ = first_ts;
    const detail::TimelineBlock& block = out.timeline_;
    if (block.max_end(0, block.size()) > detail::clamp_time(sent_at_ns)) {
      out.clear_regions();
      return false;
    }
    out.regions_ready_ = true;
    // Storage far larger than the block (few Complete events) would be
    // copied by the store: trim it here, off the engine's thread.
    if (block.size() >= detail::TimelineStore::kAdoptMin && block.capacity() > 2 * block.size())
      out.timeline_.shrink();
    return true;
  }

  std::array<detail::SpanUnion, detail::kMaskBins>& spans;
  detail::TimelineBlock::Appender timeline;
  std::int64_t first_ts = std::numeric_limits<std::int64_t>::max();
};

namespace {

// Only a main-role source has a main thread; no tid equals kNoThread.
constexpr std::uint64_t kNoThread = std::uint64_t{1} << 32;

std::uint64_t main_thread_of(const SourceInfo& source) {
  return source.role == ProcessRole::kMain ? static_cast<std::uint32_t>(source.pid) : kNoThread;
}

constexpr ClassMask kFetchBit = class_bit(EventClass::kFetch);

// pair_ids_: a pair no event has named yet in this frame (pack_ids never
// gives it: the source bits are 0).
constexpr std::uint64_t kUnknownPair = ~std::uint64_t{0};
// The most strings a frame may have for prepare_wire to use pair_ids_ (at
// most 256 x 256 pairs, 1 MiB; a frame touches only the pairs it names).
constexpr std::size_t kMaxPairStrings = 256;

}  // namespace

void BatchPreparer::prepare(const DecodedBatch& batch, PreparedBatch& out) {
  out.clear();
  const std::size_t n = batch.events.size();
  out.masks_.resize(n);
  out.event_count_ = n;
  out.timeline_.reserve(n);
  const std::uint64_t main_tid = main_thread_of(batch.source);
  detail::ClassCache& classes = *classes_;
  PreparedBatch::StoredMask* const masks = out.masks_.data();
  auto& special = out.special_;
  const Event* const events = batch.events.data();
  Regions regions(out);
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = events[i];
    const EventKind kind = ev.kind;
    if (kind != EventKind::kComplete && kind != EventKind::kBegin) [[unlikely]] {
      masks[i] = PreparedBatch::StoredMask{0};
      special.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    const bool main = ev.tid == main_tid;
    const ClassMask mask = classes.masks(detail::ClassCache::key(ev.cat, ev.name))[main ? 1 : 0];
    masks[i] = PreparedBatch::StoredMask{mask};
    if (kind != EventKind::kComplete) [[unlikely]] {
      special.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    regions.add(ev.ts_ns, ev.dur_ns, ev.tid,
                detail::TimelineBlock::pack_ids(ev.cat, ev.name, mask));
    if (main && (mask & kFetchBit)) [[unlikely]]
      special.push_back(static_cast<std::uint32_t>(i));
  }
  regions.finish(out, batch.sent_at_ns);
  out.ready_ = true;
}

bool BatchPreparer::prepare_wire(const WireEvents& events, DecodedBatch& batch,
                                 PreparedBatch& out) {
  // A frame with at most 256 strings (an agent's frame names a few dozen) has
  // each (cat, name) pair's masks and timeline ids read from pair_ids_, by
  // the frame's own string indices, filled at the pair's first event: no
  // name-id lookup, hash or pack per event. Its loop stops at the first bad
  // event, so the events it prepares keep the rules; then with sent_at_ns
  // in this range their times lie within ±kTimeLimit and are not clamped.
  const std::size_t strings = events.string_count();
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
    return walk_wire<true>(events, batch, out);
  }
  return walk_wire<false>(events, batch, out);
}

namespace {

// Both timeline ids of the names of `e`, [main thread].
std::array<std::uint64_t, 2> pair_ids(detail::ClassCache& classes, const WireEvents& events,
                                      const WireEvent& e) {
  const NameId cat = events.name_id(e.cat);
  const NameId name = events.name_id(e.name);
  const auto m = classes.masks(detail::ClassCache::key(cat, name));
  return {detail::TimelineBlock::pack_ids(cat, name, m[0]),
          detail::TimelineBlock::pack_ids(cat, name, m[1])};
}

}  // namespace

const std::array<std::uint64_t, 2>& BatchPreparer::fill_pair(std::size_t k,
                                                             const WireEvents& events,
                                                             std::size_t i) {
  pair_ids_[k] = pair_ids(*classes_, events, events.raw(i));
  pair_filled_.push_back(static_cast<std::uint32_t>(k));
  return pair_ids_[k];
}

template <bool Pairs>
bool BatchPreparer::walk_wire(const WireEvents& events, DecodedBatch& batch, PreparedBatch& out) {
  out.clear();
  const std::size_t n = events.size();
  out.event_count_ = n;
  out.timeline_.reserve(n);
  const std::uint64_t main_tid = main_thread_of(batch.source);
  detail::ClassCache& classes = *classes_;
  std::vector<Event>& kept = batch.events;
  kept.clear();
  auto& masks = out.masks_;
  // Event i is kept for the engine (read again: the loop keeps few).
  const auto keep = [&](std::size_t i, ClassMask mask) {
    kept.push_back(events.event(events.raw(i)));
    masks.push_back(PreparedBatch::StoredMask{mask});
  };
  std::array<std::uint64_t, 2>* const pairs = pair_ids_.data();
  const unsigned shift = pair_shift_;
  bool bad = false;
  {
    Regions regions(out);
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
          ids = fill_pair(k, events, i)[main ? 1 : 0];
      } else {
        ids = pair_ids(classes, events, e)[main ? 1 : 0];
      }
      const ClassMask mask = Regions::mask_of(ids);
      if (kind != EventKind::kComplete) [[unlikely]] {
        keep(i, mask);
        continue;
      }
      if constexpr (Pairs)
        regions.add_clamped(e.ts_ns, e.ts_ns + e.dur_ns, e.tid, ids);
      else
        regions.add(e.ts_ns, e.dur_ns, e.tid, ids);
      if (main && (mask & kFetchBit)) [[unlikely]]
        keep(i, mask);
    }
    if (bad) {
      regions.finish(out, batch.sent_at_ns);
      out.clear();  // with the unions it filled
      return true;
    }
    if (!regions.finish(out, batch.sent_at_ns)) {
      // A region past sent_at: the engine walks the whole batch (its rules
      // were checked above).
      events.decode_all(batch.events);
      prepare(batch, out);
      return false;
    }
  }
  auto& special = out.special_;
  special.resize(kept.size());
  for (std::size_t k = 0; k < special.size(); ++k)
    special[k] = static_cast<std::uint32_t>(k);
  out.compact_ = true;
  out.ready_ = true;
  return false;
}

}  // namespace stallwatch::collector
