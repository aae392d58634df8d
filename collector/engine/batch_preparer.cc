#include "engine/batch_preparer.h"

#include <algorithm>
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

  // A Complete event (times as on the wire) of class `mask`.
  [[gnu::always_inline]] void add(std::int64_t ts_ns, std::int64_t dur_ns, std::uint32_t tid,
                                  NameId cat, NameId name, ClassMask mask) {
    const std::int64_t ts = detail::clamp_time(ts_ns);
    const std::int64_t end = detail::saturating_end(ts, dur_ns);
    first_ts = std::min(first_ts, ts);
    const auto metric = static_cast<ClassMask>(mask & detail::kMetricClasses);
    if (metric != 0 && ts < end) spans[metric].add(ts, end);
    timeline.append(ts, end, tid, detail::TimelineBlock::pack_ids(cat, name, mask));
  }

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
    regions.add(ev.ts_ns, ev.dur_ns, ev.tid, ev.cat, ev.name, mask);
    if (main && (mask & kFetchBit)) [[unlikely]]
      special.push_back(static_cast<std::uint32_t>(i));
  }
  regions.finish(out, batch.sent_at_ns);
  out.ready_ = true;
}

bool BatchPreparer::prepare_wire(const WireEvents& events, DecodedBatch& batch,
                                 PreparedBatch& out) {
  out.clear();
  const std::size_t n = events.size();
  out.event_count_ = n;
  out.timeline_.reserve(n);
  const std::uint64_t main_tid = main_thread_of(batch.source);
  detail::ClassCache& classes = *classes_;
  std::vector<Event>& kept = batch.events;
  kept.clear();
  auto& masks = out.masks_;
  const auto keep = [&](const WireEvent& e, ClassMask mask) {
    kept.push_back(events.event(e));
    masks.push_back(PreparedBatch::StoredMask{mask});
  };
  bool bad = false;
  {
    Regions regions(out);
    for (std::size_t i = 0; i < n; ++i) {
      const WireEvent e = events.raw(i);
      bad |= events.bad(e);
      const auto kind = static_cast<EventKind>(e.kind);
      if (kind != EventKind::kComplete && kind != EventKind::kBegin) [[unlikely]] {
        keep(e, 0);
        continue;
      }
      const bool main = e.tid == main_tid;
      const NameId cat = events.name_id(e.cat);
      const NameId name = events.name_id(e.name);
      const ClassMask mask = classes.masks(detail::ClassCache::key(cat, name))[main ? 1 : 0];
      if (kind != EventKind::kComplete) [[unlikely]] {
        keep(e, mask);
        continue;
      }
      regions.add(e.ts_ns, e.dur_ns, e.tid, cat, name, mask);
      if (main && (mask & kFetchBit)) [[unlikely]]
        keep(e, mask);
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
