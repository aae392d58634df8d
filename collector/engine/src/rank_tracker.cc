// SPDX-License-Identifier: MIT
#include "rank_tracker.h"

#include <algorithm>
#include <iterator>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {
namespace {

constexpr std::uint64_t kDeviceBins = BatchCoverage::bins_with(class_bit(EventClass::kDeviceBusy));

std::int64_t longest_window(const EngineConfig& config) {
  return config.windows_ns.empty()
             ? 0
             : *std::max_element(config.windows_ns.begin(), config.windows_ns.end());
}

// The configured windows in resolution cells (the totals excluded).
std::vector<std::int64_t> window_cells(const EngineConfig& config) {
  std::vector<std::int64_t> cells;
  cells.reserve(config.windows_ns.size());
  for (std::int64_t w : config.windows_ns)
    cells.push_back(w / config.resolution_ns);
  return cells;
}

// The earliest time of a new source's first batch: its sent_at or an
// event's, or (a compact batch keeps no Complete events) their earliest
// start.
std::int64_t first_time(const DecodedBatch& batch, const PreparedBatch* prepared,
                        std::int64_t sent_at) {
  std::int64_t first = sent_at;
  for (const Event& ev : batch.events)
    first = std::min(first, clamp_time(ev.ts_ns));
  if (prepared != nullptr && prepared->regions_ready())
    first = std::min(first, prepared->min_complete_ts());
  return first;
}

// Keys `calls` (sorted by start) by the step they follow in `steps` (step
// marks in (ts, value) order) and their ordinal in it: of the marks before
// the first call only the last is read.
template <class Steps>
void number_calls(const Steps& steps, std::vector<CommCall>& calls) {
  auto next = std::partition_point(
      steps.begin(), steps.end(), [&](const auto& m) { return m.ts_ns <= calls.front().start_ns; });
  std::int64_t step = next != steps.begin() ? std::prev(next)->value : -1;
  std::uint32_t ordinal = 0;
  for (CommCall& c : calls) {
    bool moved = false;
    while (next != steps.end() && next->ts_ns <= c.start_ns) {
      step = next->value;
      ++next;
      moved = true;
    }
    if (moved) ordinal = 0;
    c.step = step;
    c.ordinal = ordinal++;
  }
}

}  // namespace

RankTracker::RankTracker(std::string job, std::int32_t rank, const EngineConfig& config,
                         ClassCache& classes, BatchCoverage& batch, TimelineBlockPool& blocks,
                         const SpecialNames& names)
    : job_(std::move(job)),
      rank_(rank),
      config_(config),
      batch_(batch),
      blocks_(blocks),
      res_(config.resolution_ns),
      step_mark_(names.step_mark),
      sources_(config.max_sources_per_rank),
      timeline_(config.timeline_ns, config.timeline_max_regions, &blocks, names.step_mark),
      progress_(names.step_mark, names.epoch_start, names.batch_size),
      gpu_(names.gpu_counters, config.resolution_ns, longest_window(config)),
      io_(config.resolution_ns),
      launches_(config.resolution_ns),
      files_(config.resolution_ns, config.top_files_per_cell, config.top_files_total_files,
             window_cells(config)),
      kernels_(config.resolution_ns, config.top_kernels_per_cell, window_cells(config)),
      walk_(classes, batch, timeline_, progress_, gpu_, config.max_open_regions_per_source,
            names.io_calls, io_, names.cuda_runtime, launches_, files_, config.max_files_per_source,
            kernels_),
      windows_(config) {}

std::int64_t RankTracker::cell_of(std::int64_t t) const {
  return floor_div(t, res_);
}

std::int64_t RankTracker::horizon_for(std::int64_t watermark_ns) const {
  return floor_grid(watermark_ns - config_.lateness_ns, res_);
}

bool RankTracker::ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared) {
  std::size_t index = 0;
  SourceTracker* src = sources_.find(batch.source, index);
  const std::int64_t sent_at = clamp_time(batch.sent_at_ns);
  if (src == nullptr) {
    if (sources_.full()) return false;
    src = &sources_.add(batch, first_time(batch, prepared, sent_at), index);
    // The rank's start can move earlier only down to the finalized horizon.
    const bool first = !sources_.has_start();
    if (sources_.lower_start(src->start_ns, windows_.horizon_ns())) {
      windows_.on_start(sources_.start_ns(), first);
    }
  } else {
    sources_.continue_with(*src, batch);
  }
  sources_.receive(*src, index, batch, now_ns,
                   prepared != nullptr ? prepared->event_count() : batch.events.size());

  // A batch that moves the horizon past the whole history sends what falls
  // out of it straight to the totals instead of building cells for it.
  windows_.expect_horizon(horizon_for(std::max(sources_.watermark_ns(), sent_at)));

  const WalkBounds bounds{windows_.horizon_ns(), sources_.start_ns()};
  const auto src_index = static_cast<std::uint16_t>(index);
  walk_.apply(batch, prepared, *src, src_index, bounds);
  sources_.advance_watermark(*src, sent_at);
  if (batch.final) {
    walk_.end_open_regions(*src, src_index, sent_at, bounds);
    sources_.finish(*src, sent_at);
  }
  if (!src->device_events && batch_.any_in(kDeviceBins)) sources_.saw_device_events(*src);
  // The storage of the blocks the timeline dropped went to the pool; from
  // there to the prepared batch whose block it just adopted.
  timeline_.trim();
  if (prepared != nullptr) blocks_.refill(prepared->timeline());
  windows_.add(batch_);
  sources_.refresh_state();

  if (!sources_.finished()) {
    finished_since_ns_ = kNoTime;
  } else if (finished_since_ns_ == kNoTime) {
    finished_since_ns_ = now_ns;
  }
  advance_horizon(horizon_for(sources_.watermark_ns()));
  return true;
}

void RankTracker::settle(std::int64_t now_ns) {
  if (finished_since_ns_ == kNoTime || now_ns - finished_since_ns_ < config_.lateness_ns) return;
  advance_horizon(ceil_grid(sources_.end_ns(), res_));
}

void RankTracker::advance_horizon(std::int64_t horizon) {
  if (windows_.horizon_ns() != kNoTime && horizon <= windows_.horizon_ns()) return;
  const std::int64_t k0 = windows_.history().cell_end;
  const std::int64_t k1 = cell_of(horizon);
  windows_.finalize_to(horizon, sources_.all(), progress_.steps(), io_, launches_);
  if (k1 > k0) {
    // The same cells the finalizer folded; those it sent to the bulk are in no window.
    const auto cap = static_cast<std::int64_t>(windows_.history().cells.capacity());
    files_.finalize(k0, k1, std::max(k0, k1 - cap));
    files_.trim(windows_.history().first_cell());
    kernels_.finalize(k0, k1, std::max(k0, k1 - cap));
    kernels_.trim(windows_.history().first_cell());
  }
  finalized_.advance(windows_.totals().sums(), sources_.device() != DeviceSignal::kComputeProxy);
  // An End whose Begin has not come by the time the horizon passes it
  // never pairs.
  sources_.expire_orphan_ends(horizon);
}

Timeline RankTracker::timeline(const NameTable& names, std::int64_t seconds) const {
  Timeline tl;
  tl.job = job_;
  tl.rank = rank_;
  tl.to_ns = sources_.watermark_ns();
  const std::int64_t span =
      std::min(config_.timeline_ns,
               std::clamp<std::int64_t>(seconds, 0, kTimeLimit / kNsPerSecond) * kNsPerSecond);
  tl.from_ns = tl.to_ns - span;
  timeline_.for_each_region([&](const TimelineEntry& e) {
    if (e.end_ns < tl.from_ns || e.start_ns > tl.to_ns) return;
    tl.regions.push_back(TimelineRegion{e.start_ns, e.end_ns, false, sources_[e.source].info.pid,
                                        e.tid, e.mask, std::string(names.str(e.cat)),
                                        std::string(names.str(e.name)), e.loop_end});
  });
  for (const auto& src : sources_.all()) {
    for (const OpenRegion& r : src.open) {
      if (r.orphan_end || src.watermark_ns < tl.from_ns) continue;
      tl.regions.push_back(TimelineRegion{
          r.begin_ns, std::max(src.watermark_ns, r.begin_ns), true, src.info.pid, r.tid, r.mask,
          std::string(names.str(r.cat)), std::string(names.str(r.name))});
    }
  }
  std::stable_sort(
      tl.regions.begin(), tl.regions.end(),
      [](const TimelineRegion& a, const TimelineRegion& b) { return a.start_ns < b.start_ns; });
  const auto& marks = timeline_.marks();
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const TimelineMarkEntry& m = marks[i];
    if (m.ts_ns < tl.from_ns || m.ts_ns > tl.to_ns) continue;
    tl.marks.push_back(TimelineMark{m.ts_ns, sources_[m.source].info.pid, m.tid,
                                    std::string(names.str(m.name)), m.value});
  }
  tl.truncated = timeline_.truncated_since(tl.from_ns);
  return tl;
}

std::vector<CommCall> RankTracker::comm_calls() const {
  // Called for every rank with collectives at every tick: reads only the
  // COMM regions and step marks, which the timeline keeps apart, and sorts
  // only what did not arrive in order (one thread's calls and marks usually
  // do).
  std::vector<CommCall> calls;
  timeline_.for_each_comm_span([&](std::int64_t start, std::int64_t end) {
    calls.push_back({start, end, -1, 0});
  });
  if (calls.empty()) return calls;
  const auto by_start = [](const CommCall& a, const CommCall& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
  };
  if (!std::is_sorted(calls.begin(), calls.end(), by_start))
    std::sort(calls.begin(), calls.end(), by_start);
  const auto& marks = timeline_.step_marks();
  if (timeline_.step_marks_sorted()) {
    number_calls(marks, calls);
  } else {
    std::vector<TimelineStore::StepMark> sorted(marks.begin(), marks.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return TimelineStore::StepMark::less(a.ts_ns, a.value, b);
    });
    number_calls(sorted, calls);
  }
  return calls;
}

std::size_t RankTracker::approx_bytes() const {
  return sizeof(*this) + job_.capacity() + sources_.bytes() + timeline_.bytes() +
         progress_.bytes() + gpu_.bytes() + io_.bytes() + launches_.bytes() + files_.bytes() +
         kernels_.bytes() + walk_.bytes() + windows_.bytes();
}

}  // namespace stallwatch::collector::detail
