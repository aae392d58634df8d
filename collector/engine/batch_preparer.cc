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
  clear_spans();
}

void PreparedBatch::clear_spans() {
  for (std::uint64_t u = used_; u != 0; u &= u - 1)
    spans_[static_cast<std::size_t>(__builtin_ctzll(u))].clear();
  used_ = 0;
  spans_ready_ = false;
}

void PreparedBatch::move_spans_to(detail::BatchCoverage& to, std::int64_t lower) {
  for (std::uint64_t u = used_; u != 0; u &= u - 1) {
    const auto mask = static_cast<ClassMask>(__builtin_ctzll(u));
    detail::SpanUnion& spans = spans_[mask];
    spans.clip_below(lower);
    to.adopt(mask, spans);
  }
  used_ = 0;
  spans_ready_ = false;
}

BatchPreparer::BatchPreparer(const ClassMapping& mapping, const NameTable& names,
                             std::mutex* names_mutex)
    : classes_(std::make_unique<detail::ClassCache>(mapping, names, names_mutex)) {}

BatchPreparer::~BatchPreparer() = default;
BatchPreparer::BatchPreparer(BatchPreparer&&) noexcept = default;
BatchPreparer& BatchPreparer::operator=(BatchPreparer&&) noexcept = default;

void BatchPreparer::prepare(const DecodedBatch& batch, PreparedBatch& out) {
  using detail::clamp_time;
  out.clear();
  const std::size_t n = batch.events.size();
  out.masks_.resize(n);
  const bool main_role = batch.source.role == ProcessRole::kMain;
  const auto main_tid = static_cast<std::uint32_t>(batch.source.pid);
  const std::int64_t sent_at = clamp_time(batch.sent_at_ns);
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
  std::uint64_t used = 0;
  detail::ClassCache& classes = *classes_;
  PreparedBatch::StoredMask* const masks = out.masks_.data();
  auto& spans = out.spans_;
  // Events come in runs of one name (a thread's reads, a pass's kernels):
  // the last answer is kept at hand.
  std::uint64_t last_key = detail::ClassCache::key(NameTable::kOverflow, NameTable::kOverflow);
  detail::ClassCache::Masks last_masks = classes.masks(last_key);
  for (std::size_t i = 0; i < n; ++i) {
    const Event& ev = batch.events[i];
    if (ev.kind != EventKind::kComplete && ev.kind != EventKind::kBegin) {
      masks[i] = PreparedBatch::StoredMask{0};
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
    if (ev.kind != EventKind::kComplete) continue;
    const std::int64_t ts = clamp_time(ev.ts_ns);
    const std::int64_t end = detail::saturating_end(ts, ev.dur_ns);
    last_end = std::max(last_end, end);
    const auto metric = static_cast<ClassMask>(mask & detail::kMetricClasses);
    if (metric != 0 && ts < end) {
      spans[metric].add(ts, end);
      used |= std::uint64_t{1} << metric;
    }
  }
  out.used_ = used;
  if (last_end <= sent_at) {
    out.spans_ready_ = true;
  } else {
    out.clear_spans();
  }
  out.ready_ = true;
}

}  // namespace stallwatch::collector
