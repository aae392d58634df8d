#include "engine/batch_preparer.h"

#include <algorithm>
#include <limits>

#include "engine/batch_coverage.h"
#include "engine/class_cache.h"
#include "engine/time_math.h"

namespace stallwatch::collector {

void PreparedBatch::clear() {
  ready_ = false;
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

void BatchPreparer::prepare(const DecodedBatch& batch, PreparedBatch& out) {
  using detail::clamp_time;
  constexpr ClassMask kFetchBit = class_bit(EventClass::kFetch);
  out.clear();
  const std::size_t n = batch.events.size();
  out.masks_.resize(n);
  out.timeline_.reserve(n);
  const bool main_role = batch.source.role == ProcessRole::kMain;
  const auto main_tid = static_cast<std::uint32_t>(batch.source.pid);
  const std::int64_t sent_at = clamp_time(batch.sent_at_ns);
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
  std::int64_t first_ts = std::numeric_limits<std::int64_t>::max();
  std::int64_t chunk_end = std::numeric_limits<std::int64_t>::min();
  std::uint64_t used = 0;
  detail::ClassCache& classes = *classes_;
  PreparedBatch::StoredMask* const masks = out.masks_.data();
  auto& spans = out.spans_;
  auto& special = out.special_;
  detail::TimelineBlock& timeline = out.timeline_;
  // Events come in runs of one name (a thread's reads, a pass's kernels):
  // the last answer is kept at hand.
  std::uint64_t last_key = detail::ClassCache::key(NameTable::kOverflow, NameTable::kOverflow);
  detail::ClassCache::Masks last_masks = classes.masks(last_key);
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = batch.events[i];
    if (ev.kind != EventKind::kComplete && ev.kind != EventKind::kBegin) {
      masks[i] = PreparedBatch::StoredMask{0};
      special.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    const bool main = main_role && ev.tid == main_tid;
    const std::uint64_t key = detail::ClassCache::key(ev.cat, ev.name);
    if (key != last_key) [[unlikely]] {
      last_key = key;
      last_masks = classes.masks(key);
    }
    const ClassMask mask = last_masks[main ? 1 : 0];
    masks[i] = PreparedBatch::StoredMask{mask};
    if (ev.kind != EventKind::kComplete) {
      special.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    const std::int64_t ts = clamp_time(ev.ts_ns);
    const std::int64_t end = detail::saturating_end(ts, ev.dur_ns);
    last_end = std::max(last_end, end);
    first_ts = std::min(first_ts, ts);
    const auto metric = static_cast<ClassMask>(mask & detail::kMetricClasses);
    if (metric != 0 && ts < end) {
      spans[metric].add(ts, end);
      used |= std::uint64_t{1} << metric;
    }
    timeline.append_unchunked(detail::TimelineEntry{ts, end, ev.cat, ev.name, ev.tid, 0, mask});
    chunk_end = std::max(chunk_end, end);
    if (timeline.size() % detail::TimelineBlock::kChunk == 0) {
      timeline.set_chunk_end(chunk_end);
      chunk_end = std::numeric_limits<std::int64_t>::min();
    }
    if (main && (mask & kFetchBit)) [[unlikely]]
      special.push_back(static_cast<std::uint32_t>(i));
  }
  if (timeline.size() % detail::TimelineBlock::kChunk != 0) timeline.set_chunk_end(chunk_end);
  out.used_ = used;
  out.min_complete_ts_ = first_ts;
  if (last_end <= sent_at) {
    out.regions_ready_ = true;
    // Storage far larger than the block (few Complete events) would be
    // copied by the store: trim it here, off the engine's thread.
    if (timeline.size() >= detail::TimelineStore::kAdoptMin &&
        timeline.capacity() > 2 * timeline.size())
      timeline.shrink();
  } else {
    out.clear_regions();
  }
  out.ready_ = true;
}

}  // namespace stallwatch::collector
