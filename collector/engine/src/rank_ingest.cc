#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "engine/time_math.h"
#include "rank_tracker.h"
#include "stallwatch/device_lane.h"

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

DeviceSignal device_signal(const std::vector<SourceTracker>& sources) {
  bool cuda_events = false;
  for (const auto& s : sources) {
    if (s.info.device_source == DeviceSource::kCupti) return DeviceSignal::kCupti;
    cuda_events |= s.info.device_source == DeviceSource::kCudaEvents;
  }
  return cuda_events ? DeviceSignal::kCudaEvents : DeviceSignal::kComputeProxy;
}

}  // namespace

RankTracker::RankTracker(std::string job, std::int32_t rank, const EngineConfig& config,
                         ClassCache& classes, BatchCoverage& batch, TimelineBlockPool& blocks,
                         const SpecialNames& names)
    : job_(std::move(job)),
      rank_(rank),
      config_(config),
      classes_(classes),
      batch_(batch),
      blocks_(blocks),
      names_(names),
      res_(config.resolution_ns),
      history_(static_cast<std::size_t>((config.history_ns + config.resolution_ns - 1) /
                                        config.resolution_ns),
               config.max_steps_kept),
      timeline_(config.timeline_ns, config.timeline_max_regions, &blocks),
      gpu_(config.resolution_ns,
           config.windows_ns.empty()
               ? 0
               : *std::max_element(config.windows_ns.begin(), config.windows_ns.end())) {
  for (std::int64_t w : config.windows_ns)
    windows_.emplace_back(w / res_, res_);
  windows_.emplace_back(0, res_);
}

std::int64_t RankTracker::cell_of(std::int64_t t) const {
  return floor_div(t, res_);
}

std::int64_t RankTracker::lower_bound_ns() const {
  return std::max(horizon_ns_, start_ns_);
}

SourceTracker* RankTracker::find_source(const SourceInfo& info, std::size_t& index) {
  if (last_source_ < sources_.size()) {
    auto& s = sources_[last_source_];
    if (s.info.pid == info.pid && s.info.host == info.host) {
      index = last_source_;
      return &s;
    }
  }
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].info.pid == info.pid && sources_[i].info.host == info.host) {
      index = i;
      return &sources_[i];
    }
  }
  return nullptr;
}

bool RankTracker::ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared) {
  std::size_t index = 0;
  SourceTracker* src = find_source(batch.source, index);
  const std::int64_t sent_at = clamp_time(batch.sent_at_ns);
  if (src == nullptr) {
    if (sources_.size() >= config_.max_sources_per_rank) return false;
    index = sources_.size();
    src = &sources_.emplace_back();
    src->info = batch.source;
    std::int64_t first_time = sent_at;
    for (const Event& ev : batch.events)
      first_time = std::min(first_time, clamp_time(ev.ts_ns));
    // A compact batch keeps no Complete events: their earliest start.
    if (prepared != nullptr && prepared->regions_ready())
      first_time = std::min(first_time, prepared->min_complete_ts());
    const std::int64_t claimed = clamp_time(batch.source.start_ns);
    src->start_ns = claimed > 0 && claimed <= first_time ? claimed : first_time;
    src->next_seq = batch.seq + 1;
    lower_start(src->start_ns);
    device_ = device_signal(sources_);
  } else {
    if (batch.seq > src->next_seq) src->counters.lost_batches += batch.seq - src->next_seq;
    // A sequence number below the expected one is a restarted process (pid reuse).
    src->next_seq = batch.seq + 1;
    update_source_info(*src, batch, false);
  }
  last_source_ = index;
  src->last_seen_ns = now_ns;
  last_seen_ns_ = std::max(last_seen_ns_, now_ns);
  src->counters.batches_received += 1;
  src->counters.events_received +=
      prepared != nullptr ? prepared->event_count() : batch.events.size();
  src->counters.agent_dropped += batch.dropped_since_last;
  if (src->finished && !batch.final) src->finished = false;

  // A batch that moves the horizon past the whole history sends what falls
  // out of it straight to the totals instead of building cells for it.
  const std::int64_t next_wm = std::max(watermark_ns_, sent_at);
  bulk_before_ns_ = floor_grid(next_wm - config_.lateness_ns, res_) -
                    static_cast<std::int64_t>(history_.cells.capacity()) * res_;

  const auto src_index = static_cast<std::uint16_t>(index);
  if (prepared == nullptr) {
    apply_events<Walk::kPlain>(batch, nullptr, *src, src_index);
  } else if (prepared->regions_ready()) {
    apply_prepared(batch, *prepared, *src, src_index);
  } else {
    apply_events<Walk::kMasks>(batch, prepared, *src, src_index);
  }
  src->watermark_ns = std::max(src->watermark_ns, sent_at);
  watermark_ns_ = std::max(watermark_ns_, src->watermark_ns);
  if (batch.final) finish_source(*src, static_cast<std::uint16_t>(index), sent_at);
  // The storage of the blocks the timeline dropped went to the pool; from
  // there to the prepared batch whose block it just adopted.
  timeline_.trim();
  if (prepared != nullptr) blocks_.refill(prepared->timeline());
  flush_intervals();
  refresh_rank_state();

  const std::int64_t horizon = floor_grid(watermark_ns_ - config_.lateness_ns, res_);
  if (horizon_ns_ == kNoTime || horizon > horizon_ns_) finalize_to(horizon);
  return true;
}

void RankTracker::update_source_info(SourceTracker& src, const DecodedBatch& batch, bool first) {
  const SourceInfo& in = batch.source;
  if (!first && src.info.role == in.role && src.info.device_source == in.device_source &&
      src.info.ppid == in.ppid && src.info.agent_version == in.agent_version) {
    return;
  }
  src.info.role = in.role;
  src.info.ppid = in.ppid;
  src.info.agent_version = in.agent_version;
  if (src.info.device_source != in.device_source) {
    src.info.device_source = in.device_source;
    device_ = device_signal(sources_);
  }
}

// The rank's lifetime starts at its earliest source; it can move earlier
// only down to the finalized horizon.
void RankTracker::lower_start(std::int64_t start_ns) {
  if (!has_start_) {
    has_start_ = true;
    start_ns_ = start_ns;
    history_.cell_end = cell_of(start_ns);
    return;
  }
  if (horizon_ns_ != kNoTime) start_ns = std::max(start_ns, horizon_ns_);
  if (start_ns >= start_ns_) return;
  start_ns_ = start_ns;
  if (history_.cells.empty()) history_.cell_end = std::min(history_.cell_end, cell_of(start_ns));
}

// The Complete regions of a prepared batch go in whole: their intervals
// (clipped at the lower bound) to the batch coverage, their entries to the
// timeline; late ones are counted only when the earliest is late. Then the
// special events one by one.
void RankTracker::apply_prepared(const DecodedBatch& batch, PreparedBatch& prepared,
                                 SourceTracker& src, std::uint16_t src_index) {
  prepared.move_spans_to(batch_, lower_bound_ns());
  const std::int64_t horizon = horizon_ns_;
  if (prepared.min_complete_ts() < horizon) [[unlikely]] {
    // The block has every Complete region, with its clamped start.
    const TimelineBlock& block = prepared.timeline();
    std::uint64_t late = 0;
    for (std::size_t i = 0; i < block.size(); ++i)
      late += block.start_of(i) < horizon;
    src.counters.late_events += late;
  }
  timeline_.add_block(prepared.timeline(), src_index);
  apply_events<Walk::kSpecial>(batch, &prepared, src, src_index);
}

template <RankTracker::Walk kWalk>
void RankTracker::apply_events(const DecodedBatch& batch, const PreparedBatch* prepared,
                               SourceTracker& src, std::uint16_t src_index) {
  constexpr bool kPrepared = kWalk != Walk::kPlain;
  const PreparedBatch::StoredMask* const masks = kPrepared ? prepared->masks().data() : nullptr;
  const std::uint32_t* const special =
      kWalk == Walk::kSpecial ? prepared->special().data() : nullptr;
  const std::int64_t horizon = horizon_ns_;  // kNoTime: nothing is late yet
  const std::int64_t lower = lower_bound_ns();
  const std::int64_t hi = std::max(src.watermark_ns, clamp_time(batch.sent_at_ns));
  const bool main_role = src.info.role == ProcessRole::kMain;
  const auto main_tid = static_cast<std::uint32_t>(src.info.pid);
  const std::size_t max_open = config_.max_open_regions_per_source;
  std::uint64_t late = 0;
  std::uint64_t unpaired = 0;
  // Locals, not members, in the loop: the stores it makes could alias
  // members, which the compiler would then reload for every event.
  ClassCache& classes = classes_;
  BatchCoverage& coverage = batch_;
  const std::int64_t start = start_ns_;

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
        timeline_.add_region(TimelineEntry{ts, end, ev.cat, ev.name, ev.tid, src_index, mask});
      }
      if (main && (mask & kFetchBit) && end >= horizon && end >= start) [[unlikely]] {
        steps_.add_fetch_end(end);
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
        if (OpenRegion* found = src.open.find(key)) {
          const OpenRegion prior = *found;
          src.open.remove(found);
          if (prior.orphan_end) {
            close_region(r, prior.end_ns, prior.end_on_time, src_index);
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
          close_region(r, ts, !is_late, src_index);
        } else if (found != nullptr || src.open.size() >= max_open) {
          ++unpaired;
        } else {
          OpenRegion orphan;
          orphan.key = key;
          orphan.end_ns = ts;
          orphan.end_eff_ns = std::max(ts, lower);
          orphan.tid = ev.tid;
          orphan.orphan_end = true;
          orphan.end_on_time = !is_late;
          src.open.add(orphan);
        }
        break;
      }
      case EventKind::kMark: {
        if (is_late) {
          ++late;
          break;
        }
        const std::int64_t value = int_value(ev);
        timeline_.add_mark(TimelineMarkEntry{ts, value, ev.name, ev.tid, src_index});
        if (ev.name == names_.step_mark) {
          if (ts >= start_ns_) steps_.add_mark(ts);
          if (ts >= step_ts_) {
            step_ts_ = ts;
            step_ = value;
          }
        } else if (ev.name == names_.epoch_start && ts >= epoch_ts_) {
          epoch_ts_ = ts;
          epoch_ = value;
        }
        break;
      }
      case EventKind::kCounter: {
        if (is_late) {
          ++late;
          break;
        }
        if (ev.name == names_.batch_size) {
          steps_.add_batch_size(ts, double_value(ev));
        } else if (wire::is_device_lane(ev.tid)) {
          add_gpu_counter(ev, ts, double_value(ev));
        }
        break;
      }
    }
  }
  src.counters.late_events += late;
  src.counters.unpaired_events += unpaired;
  for (const TimelineEntry& e : closed_)
    timeline_.add_region(e);
  closed_.clear();
}

// Closes a region at `end_ns`; only its part from the lower bound on counts
// (an End before the horizon closes the region at the horizon).
void RankTracker::close_region(const OpenRegion& r, std::int64_t end_ns, bool end_on_time,
                               std::uint16_t src_index) {
  add_interval(std::max(r.begin_eff_ns, lower_bound_ns()), end_ns, r.mask);
  closed_.push_back(TimelineEntry{r.begin_ns, std::max(end_ns, r.begin_ns), r.cat, r.name, r.tid,
                                  src_index, r.mask});
  add_fetch_step(r, end_ns, end_on_time);
}

void RankTracker::add_fetch_step(const OpenRegion& r, std::int64_t end_ns, bool end_on_time) {
  if (!r.main_thread || !(r.mask & kFetchBit) || !end_on_time) return;
  if (end_ns < start_ns_ || end_ns < horizon_ns_) return;
  steps_.add_fetch_end(end_ns);
}

// NVML samples (agent/gpu) on a device lane; other counters there are ignored.
void RankTracker::add_gpu_counter(const Event& ev, std::int64_t ts, double value) {
  for (std::size_t c = 0; c < kGpuCounterCount; ++c) {
    if (ev.name == names_.gpu_counters[c]) {
      gpu_.add(wire::lane_device(ev.tid), static_cast<GpuCounter>(c), ts, value);
      return;
    }
  }
}

// A final batch: open regions end at its sent_at and count as unpaired.
void RankTracker::finish_source(SourceTracker& src, std::uint16_t src_index, std::int64_t at_ns) {
  const std::int64_t lower = lower_bound_ns();
  for (const OpenRegion& r : src.open) {
    src.counters.unpaired_events += 1;
    if (r.orphan_end) continue;
    add_interval(std::max(r.begin_eff_ns, lower), at_ns, r.mask);
    timeline_.add_region(TimelineEntry{r.begin_ns, std::max(at_ns, r.begin_ns), r.cat, r.name,
                                       r.tid, src_index, r.mask});
  }
  src.open.clear();
  src.finished = true;
  src.final_at_ns = at_ns;
}

void RankTracker::refresh_rank_state() {
  bool all = !sources_.empty();
  std::int64_t end = kNoTime;
  for (const auto& s : sources_) {
    all = all && s.finished;
    if (s.finished) end = std::max({end, s.final_at_ns, s.watermark_ns});
  }
  finished_ = all;
  if (all) end_ns_ = std::max(end, start_ns_);
}

void RankTracker::flush_intervals() {
  if (batch_.empty()) return;
  // Pieces come in time order: keep the current cell and its histogram.
  std::int64_t cell_end = 0;
  MaskHistogram* h = nullptr;
  const auto count = [&](std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask) {
    if (s < bulk_before_ns_) {
      const std::int64_t cut = std::min(e, bulk_before_ns_);
      add_to_bulk(cut - s, old_mask, new_mask);
      s = cut;
    }
    while (s < e) {
      if (h == nullptr || s >= cell_end) {
        const std::int64_t k = cell_of(s);
        cell_end = (k + 1) * res_;
        h = &pending_.at(k);
      }
      const std::int64_t piece_end = std::min(e, cell_end);
      // Bin 0 (no class) is never read.
      if (old_mask != 0) (*h)[old_mask] -= piece_end - s;
      (*h)[new_mask] += piece_end - s;
      s = piece_end;
    }
  };
  const auto add = batch_.take();
  if (!map_.appends(add)) {
    map_.merge(add, batch_.merge_scratch(), count);
    return;
  }
  // The usual case, a batch after everything known: each piece of `add` is a
  // change from no class. Pieces are summed a cell at a time; those of no
  // class go to bin 0, which is never read.
  const std::size_t last = add.size() - 1;  // add[last] has mask 0
  std::size_t k = 0;
  while (k < last) {
    const std::int64_t s = add[k].t;
    if (s < bulk_before_ns_) {
      count(s, add[k + 1].t, ClassMask{0}, add[k].mask);
      ++k;
      continue;
    }
    const std::int64_t cell = cell_of(s);
    const std::int64_t end = (cell + 1) * res_;
    MaskHistogram& hist = pending_.at(cell);
    for (; k < last && add[k + 1].t <= end; ++k)
      hist[add[k].mask] += add[k + 1].t - add[k].t;
    if (k == last) break;
    // A piece across the cell's end.
    hist[add[k].mask] += end - add[k].t;
    h = nullptr;
    count(end, add[k + 1].t, ClassMask{0}, add[k].mask);
    ++k;
  }
  map_.append_unreported(add);
}

}  // namespace stallwatch::collector::detail
