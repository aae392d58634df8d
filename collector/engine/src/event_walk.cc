// SPDX-License-Identifier: MIT
#include "event_walk.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine/time_math.h"
#include "stallwatch/event_flags.h"
#include "stallwatch/protocol.h"

namespace stallwatch::collector::detail {
namespace {

constexpr ClassMask kFetchBit = class_bit(EventClass::kFetch);

std::int64_t int_value(const Event& ev) {
  if (!(ev.flags & kEventValueIsDouble)) return ev.value;
  const double d = std::bit_cast<double>(ev.value);
  if (!std::isfinite(d)) return 0;
  return static_cast<std::int64_t>(std::clamp(d, -9.0e18, 9.0e18));
}

double double_value(const Event& ev) {
  if (ev.flags & kEventValueIsDouble) {
    const double d = std::bit_cast<double>(ev.value);
    return std::isfinite(d) ? d : 0.0;
  }
  return static_cast<double>(ev.value);
}

void add_interval(BatchCoverage& coverage, std::int64_t a, std::int64_t b, ClassMask mask) {
  const auto m = static_cast<ClassMask>(mask & kMetricClasses);
  if (m != 0 && a < b) coverage.add(a, b, m);
}

}  // namespace

void EventWalk::apply(const DecodedBatch& batch, PreparedBatch* prepared, SourceTracker& src,
                      std::uint16_t src_index, WalkBounds bounds) {
  if (prepared == nullptr) {
    walk<Walk::kPlain>(batch, nullptr, src, src_index, bounds);
  } else if (prepared->regions_ready()) {
    apply_prepared(batch, *prepared, src, src_index, bounds);
  } else {
    walk<Walk::kMasks>(batch, prepared, src, src_index, bounds);
  }
}

// The Complete regions of a prepared batch go in whole: their intervals
// (clipped at the lower bound) to the batch coverage, their entries to the
// timeline; late ones are counted only when the earliest is late. Then the
// special events one by one.
void EventWalk::apply_prepared(const DecodedBatch& batch, PreparedBatch& prepared,
                               SourceTracker& src, std::uint16_t src_index, WalkBounds bounds) {
  prepared.move_spans_to(coverage_, bounds.lower_ns());
  const std::int64_t horizon = bounds.horizon_ns;
  if (prepared.min_complete_ts() < horizon) [[unlikely]] {
    // The block has every Complete region, with its clamped start.
    const TimelineBlock& block = prepared.timeline();
    std::uint64_t late = 0;
    for (std::size_t i = 0; i < block.size(); ++i)
      late += block.start_of(i) < horizon;
    src.counters.late_events += late;
  }
  timeline_.add_block(prepared.timeline(), src_index);
  walk<Walk::kSpecial>(batch, &prepared, src, src_index, bounds);
}

template <EventWalk::Walk kWalk>
void EventWalk::walk(const DecodedBatch& batch, const PreparedBatch* prepared, SourceTracker& src,
                     std::uint16_t src_index, WalkBounds bounds) {
  constexpr bool kPrepared = kWalk != Walk::kPlain;
  const PreparedBatch::StoredMask* const masks = kPrepared ? prepared->masks().data() : nullptr;
  const std::uint32_t* const special =
      kWalk == Walk::kSpecial ? prepared->special().data() : nullptr;
  const std::int64_t horizon = bounds.horizon_ns;
  const std::int64_t lower = bounds.lower_ns();
  const std::int64_t start = bounds.start_ns;
  const std::int64_t hi = std::max(src.watermark_ns, clamp_time(batch.sent_at_ns));
  const bool main_role = src.info.role == ProcessRole::kMain;
  const auto main_tid = static_cast<std::uint32_t>(src.info.pid);
  const std::size_t max_open = max_open_;
  std::uint64_t late = 0;
  std::uint64_t unpaired = 0;
  // Locals, not members, in the loop: the stores it makes could alias
  // members, which the compiler would then reload for every event.
  ClassCache& classes = classes_;
  BatchCoverage& coverage = coverage_;
  TimelineStore& timeline = timeline_;
  TrainingProgress& progress = progress_;

  const std::size_t count =
      kWalk == Walk::kSpecial ? prepared->special().size() : batch.events.size();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = kWalk == Walk::kSpecial ? special[k] : k;
    const Event& ev = batch.events[i];
    const std::int64_t ts = std::min(clamp_time(ev.ts_ns), hi);
    const bool is_late = ts < horizon;
    if (ev.kind == EventKind::kComplete) [[likely]] {
      const bool main = main_role && ev.tid == main_tid;
      const ClassMask mask =
          kPrepared ? static_cast<ClassMask>(masks[i]) : classes.classify(ev.cat, ev.name, main);
      const std::int64_t end = std::min(saturating_end(ts, ev.dur_ns), hi);
      if constexpr (kWalk != Walk::kSpecial) {
        late += is_late;
        const std::int64_t from = std::max(ts, lower);
        const auto metric = static_cast<ClassMask>(mask & kMetricClasses);
        if (metric != 0 && from < end) coverage.add(from, end, metric);
        timeline.add_region(TimelineEntry{ts, end, ev.cat, ev.name, ev.tid, src_index, mask});
      }
      if (main && (mask & kFetchBit) && end >= horizon && end >= start) [[unlikely]] {
        progress.add_fetch_end(end);
      }
      if ((ev.flags & wire::kEventFlagCompleteValue) && end >= horizon && end >= start)
          [[unlikely]] {
        const IoDirection direction = io_calls_.direction(ev.cat, ev.name);
        io_.add(end, direction, int_value(ev));
        if (ev.region_id != 0 && io_calls_.is_call(ev.cat)) {
          files_.add(end, FileKey{src_index, ev.region_id}, end - ts, direction, int_value(ev));
        }
      }
      if ((ev.flags & wire::kEventFlagCorrelation) && end >= ts) [[unlikely]] {
        const bool call = ev.cat == cuda_runtime_;
        launches_.add(call, src_index, ev.region_id, ts, end, lower);
        if (!call && end >= lower) kernels_.add(end, ev.name, end - ts);
      }
      continue;
    }
    switch (ev.kind) {
      case EventKind::kComplete:
        break;  // above
      case EventKind::kBegin: {
        late += is_late;
        const bool main = main_role && ev.tid == main_tid;
        const ClassMask mask =
            kPrepared ? static_cast<ClassMask>(masks[i]) : classes.classify(ev.cat, ev.name, main);
        const std::uint64_t key = region_key(ev.tid, ev.region_id);
        OpenRegion r;
        r.key = key;
        r.begin_ns = ts;
        r.begin_eff_ns = std::max(ts, lower);
        r.cat = ev.cat;
        r.name = ev.name;
        r.tid = ev.tid;
        r.mask = mask;
        r.main_thread = main;
        if (io_calls_.is_call(ev.cat)) [[unlikely]]
          r.end_value = int_value(ev);
        if (OpenRegion* found = src.open.find(key)) {
          const OpenRegion prior = *found;
          src.open.remove(found);
          if (prior.orphan_end) {
            close_region(r, prior.end_ns, prior.end_value, prior.end_on_time, prior.loop_end,
                         src_index, bounds);
            break;
          }
          ++unpaired;  // a Begin that never saw its End, reused key
        }
        if (src.open.size() >= max_open) {
          ++unpaired;
          break;
        }
        src.open.add(r);
        break;
      }
      case EventKind::kEnd: {
        late += is_late;
        const std::uint64_t key = region_key(ev.tid, ev.region_id);
        OpenRegion* found = src.open.find(key);
        if (found != nullptr && !found->orphan_end) {
          const OpenRegion r = *found;
          src.open.remove(found);
          close_region(r, ts, int_value(ev), !is_late, ev.value == wire::kEndLoopExhausted,
                       src_index, bounds);
        } else if (found != nullptr || src.open.size() >= max_open) {
          ++unpaired;
        } else {
          OpenRegion orphan;
          orphan.key = key;
          orphan.end_ns = ts;
          orphan.end_eff_ns = std::max(ts, lower);
          orphan.end_value = int_value(ev);
          orphan.tid = ev.tid;
          orphan.orphan_end = true;
          orphan.end_on_time = !is_late;
          orphan.loop_end = ev.value == wire::kEndLoopExhausted;
          src.open.add(orphan);
        }
        break;
      }
      case EventKind::kMark: {
        if (ev.cat == io_calls_.file_mark) [[unlikely]]
          name_file(src, int_value(ev), ev.name);
        if (is_late) {
          ++late;
          break;
        }
        const std::int64_t value = int_value(ev);
        timeline.add_mark(TimelineMarkEntry{ts, value, ev.name, ev.tid, src_index});
        progress.add_mark(ev.name, ts, value, start);
        break;
      }
      case EventKind::kCounter: {
        if (is_late) {
          ++late;
          break;
        }
        if (progress.is_batch_size(ev.name)) {
          progress.add_batch_size(ts, double_value(ev));
        } else {
          gpu_.add(ev.tid, ev.name, ts, double_value(ev));
        }
        break;
      }
    }
  }
  src.counters.late_events += late;
  src.counters.unpaired_events += unpaired;
  for (const TimelineEntry& e : closed_)
    timeline.add_region(e);
  closed_.clear();
}

// Closes a region at `end_ns`; only its part from the lower bound on counts
// (an End before the horizon closes the region at the horizon). The end of a
// main-thread fetch is a step when the End was on time, unless the wait
// ended its loop or the call returned a generator (no item came); a read or write call adds the
// bytes its End carries (`end_value`) when the End was on time.
void EventWalk::close_region(const OpenRegion& r, std::int64_t end_ns, std::int64_t end_value,
                             bool end_on_time, bool loop_end, std::uint16_t src_index,
                             WalkBounds bounds) {
  add_interval(coverage_, std::max(r.begin_eff_ns, bounds.lower_ns()), end_ns, r.mask);
  closed_.push_back(TimelineEntry{r.begin_ns, std::max(end_ns, r.begin_ns), r.cat, r.name, r.tid,
                                  src_index, r.mask, loop_end});
  if (io_calls_.is_call(r.cat) && end_on_time && end_ns >= bounds.start_ns &&
      end_ns >= bounds.horizon_ns) [[unlikely]] {
    const IoDirection d = io_calls_.direction(r.cat, r.name);
    if (d != IoDirection::kNone) io_.add(end_ns, d, end_value);
    if (r.end_value > 0 && r.end_value <= 0xFFFFFFFF) {
      files_.add(end_ns, FileKey{src_index, static_cast<std::uint32_t>(r.end_value)},
                 end_ns - r.begin_ns, d, end_value);
    }
  }
  if (!r.main_thread || !(r.mask & kFetchBit) || !end_on_time || loop_end ||
      end_value == wire::kEndNoItem) {
    return;
  }
  if (end_ns < bounds.start_ns || end_ns < bounds.horizon_ns) return;
  progress_.add_fetch_end(end_ns);
}

void EventWalk::name_file(SourceTracker& src, std::int64_t value, NameId path) const {
  if (value <= 0 || value > 0xFFFFFFFF) return;
  const auto id = static_cast<std::uint32_t>(value);
  if (auto it = src.files.find(id); it != src.files.end()) {
    it->second = path;
  } else if (src.files.size() < max_files_) {
    src.files.emplace(id, path);
  }
}

void EventWalk::end_open_regions(SourceTracker& src, std::uint16_t src_index, std::int64_t at_ns,
                                 WalkBounds bounds) {
  const std::int64_t lower = bounds.lower_ns();
  for (const OpenRegion& r : src.open) {
    src.counters.unpaired_events += 1;
    if (r.orphan_end) continue;
    add_interval(coverage_, std::max(r.begin_eff_ns, lower), at_ns, r.mask);
    timeline_.add_region(TimelineEntry{r.begin_ns, std::max(at_ns, r.begin_ns), r.cat, r.name,
                                       r.tid, src_index, r.mask});
  }
  src.open.clear();
}

}  // namespace stallwatch::collector::detail
