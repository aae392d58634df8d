// SPDX-License-Identifier: MIT
#include "engine/batch_preparer.h"

#include <algorithm>
#include <limits>

#include "batch_coverage.h"
#include "class_cache.h"
#include "stallwatch/event_flags.h"

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

bool PreparedBatch::Builder::finish(std::int64_t sent_at_ns) {
  timeline_.finish();
  std::uint64_t used = 0;
  for (std::size_t m = 1; m < spans_.size(); ++m)
    used |= std::uint64_t{!spans_[m].empty()} << m;
  out_.used_ = used;
  out_.min_complete_ts_ = first_ts_;
  out_.ready_ = true;
  const detail::TimelineBlock& block = out_.timeline_;
  if (block.max_end(0, block.size()) > detail::clamp_time(sent_at_ns)) {
    out_.clear_regions();
    return false;
  }
  out_.regions_ready_ = true;
  // Storage far larger than the block (few Complete events) would be
  // copied by the store: trim it here, off the engine's thread.
  if (block.size() >= detail::TimelineStore::kAdoptMin && block.capacity() > 2 * block.size())
    out_.timeline_.shrink();
  return true;
}

bool PreparedBatch::Builder::finish_compact(std::int64_t sent_at_ns) {
  if (!finish(sent_at_ns)) {
    out_.clear();
    return false;
  }
  out_.compact_ = true;
  return true;
}

namespace {

constexpr ClassMask kFetchBit = class_bit(EventClass::kFetch);

}  // namespace

std::array<std::uint64_t, 2> BatchPreparer::timeline_ids(NameId cat, NameId name) {
  const auto m = classes_->masks(detail::ClassCache::key(cat, name));
  return {detail::TimelineBlock::pack_ids(cat, name, m[0]),
          detail::TimelineBlock::pack_ids(cat, name, m[1])};
}

// Besides the events the header lists as special, a Complete call that
// carries the bytes it moved (wire::kEventFlagCompleteValue) is walked one by
// one, for its bytes, and so is a launch call or launched work
// (wire::kEventFlagCorrelation), for its correlation id.
void BatchPreparer::prepare(const DecodedBatch& batch, PreparedBatch& out) {
  const std::size_t n = batch.events.size();
  PreparedBatch::Builder builder(out, n);
  PreparedBatch::StoredMask* const masks = builder.masks(n);
  auto& special = out.special_;
  const std::uint64_t main_tid = main_thread_of(batch.source);
  detail::ClassCache& classes = *classes_;
  const Event* const events = batch.events.data();
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
    builder.add(ev.ts_ns, ev.dur_ns, ev.tid,
                detail::TimelineBlock::pack_ids(ev.cat, ev.name, mask));
    if ((main && (mask & kFetchBit)) ||
        (ev.flags & (wire::kEventFlagCompleteValue | wire::kEventFlagCorrelation))) [[unlikely]]
      special.push_back(static_cast<std::uint32_t>(i));
  }
  builder.finish(batch.sent_at_ns);
}

}  // namespace stallwatch::collector
