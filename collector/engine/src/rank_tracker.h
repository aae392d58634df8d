#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "batch_coverage.h"
#include "class_cache.h"
#include "coverage_map.h"
#include "engine/cell_data.h"
#include "engine/decoded_batch.h"
#include "engine/engine.h"
#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "engine/snapshot.h"
#include "engine/timeline_store.h"
#include "finalized_history.h"
#include "gpu_counter_tracker.h"
#include "open_regions.h"
#include "pending_histograms.h"
#include "step_tracker.h"
#include "window_accumulator.h"

namespace stallwatch::collector::detail {

inline constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

// Name ids the engine gives a meaning to (interned once at construction).
struct SpecialNames {
  NameId step_mark = NameTable::kEmpty;
  NameId epoch_start = NameTable::kEmpty;
  NameId batch_size = NameTable::kEmpty;
  std::array<NameId, kGpuCounterCount> gpu_counters{};  // by GpuCounter
};

// One process (host, pid) of a rank.
struct SourceTracker {
  SourceInfo info;
  Counters counters;
  std::int64_t last_seen_ns = 0;        // collector clock
  std::int64_t start_ns = 0;            // agent start, clipped to its first batch
  std::int64_t watermark_ns = kNoTime;  // max sent_at_ns
  std::int64_t final_at_ns = 0;         // sent_at_ns of its final batch
  std::uint64_t next_seq = 0;
  bool finished = false;
  OpenRegions open;
};

// Everything the engine keeps for one rank (job, rank), and the exact window
// arithmetic over it (docs/design.md, "Metrics").
//
// Time is split at the finalized horizon H = (watermark - lateness) rounded
// down to the resolution grid:
//   - before H, each resolution cell is folded into a CellData (exact
//     nanoseconds per quantity, steps) kept in a ring for the history, and
//     every window holds running sums over those cells (WindowAccumulator);
//   - from H on, a CoverageMap holds the union of the closed regions, and a
//     per-cell histogram of time per class combination is updated with each
//     change of the map, so a tick reads it without a sweep. A batch's closed
//     regions are gathered in the engine's BatchCoverage and merged into the
//     map once, at the end of ingest(), in one walk. Open regions are
//     not in the map: they are laid over it when a tick or a finalization
//     needs them, up to their own source's watermark.
// When H moves, the cells it passes are folded (map + open regions as of
// that moment), handed to the windows and trimmed from the map. Data that
// arrives with a time before H is late: counted, and only its part from H on
// is used. Two consequences of that rule, by design:
//   - an open region is final up to its source's watermark as known when H
//     passes; a source whose batches (heartbeats included) arrive later than
//     the lateness loses that stretch, exactly as it would lose late events;
//   - a Complete region longer than the lateness always arrives partly late
//     (it is sent when it ends) and is clipped: long regions should be sent
//     as Begin/End, which count while open.
// A horizon jump past the whole history (a rank silent for an hour) folds
// what falls out of the history straight into the totals (bulk_).
//
// Single-threaded; owned by the Engine. Memory is bounded by the lateness,
// the history, the timeline and the configured limits, not by run length.
class RankTracker {
 public:
  RankTracker(std::string job, std::int32_t rank, const EngineConfig& config, ClassCache& classes,
              BatchCoverage& batch, TimelineBlockPool& blocks, const SpecialNames& names);

  const std::string& job() const { return job_; }
  std::int32_t rank() const { return rank_; }

  // Applies one batch; false (nothing applied) when its source is new and the
  // rank already has max_sources_per_rank sources.
  // `prepared`: null, or prepared for this batch (its spans are moved out).
  bool ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared);

  RankState state(std::int64_t now_ns) const;
  std::int64_t last_seen_ns() const { return last_seen_ns_; }
  std::size_t source_count() const { return sources_.size(); }
  std::uint64_t late_events() const {
    std::uint64_t n = 0;
    for (const auto& s : sources_)
      n += s.counters.late_events;
    return n;
  }
  // Where this rank's windows end: the watermark rounded down to the grid,
  // or, once finished, its end rounded up.
  std::int64_t window_end_ns() const;

  // Slides the windows to window_end_ns(), expires old timeline entries and
  // returns the rank's metrics for `windows_ns` (configured order, 0 = totals).
  RankSnapshot snapshot(std::int64_t now_ns, std::size_t verdict_index);

  Timeline timeline(const NameTable& names, std::int64_t seconds) const;

  // Appends to `out` the value of WindowMetrics field `metric` (an index into
  // Engine::series_metric_names()) over [t - window, t) for each t of `t_ns`
  // (window 0 = since the start); NaN where unknown or the window is empty.
  // Step percentiles read as the mean step time.
  void series(std::size_t metric, std::int64_t window_ns, const std::vector<std::int64_t>& t_ns,
              std::vector<double>& out) const;

  std::size_t approx_bytes() const;

 private:
  struct OverlayPiece {
    std::int64_t start;
    std::int64_t end;
    ClassMask mask;
  };
  struct Edge {
    std::int64_t t;
    ClassMask mask;
    int delta;  // +1 opens, -1 closes
  };
  struct PendingStep {
    std::int64_t ts_ns;
    std::int64_t duration_ns;
  };
  // The not-finalized cells [first_cell, first_cell + cells.size()) up to the
  // window end, open regions included.
  struct PendingCells {
    std::int64_t first_cell = 0;
    std::vector<Sums> cells;
    std::vector<PendingStep> durations;  // steps with a duration, by duration
  };

  // rank_ingest.cc
  SourceTracker* find_source(const SourceInfo& info, std::size_t& index);
  void update_source_info(SourceTracker& src, const DecodedBatch& batch, bool first);
  void lower_start(std::int64_t start_ns);
  // How apply_events walks a batch:
  //   kPlain     every event, classified here;
  //   kMasks     every event, with a PreparedBatch's masks;
  //   kSpecial   a PreparedBatch with regions_ready: only its special events
  //              (its Complete regions are in already, apply_prepared).
  enum class Walk { kPlain, kMasks, kSpecial };
  template <Walk kWalk>
  void apply_events(const DecodedBatch& batch, const PreparedBatch* prepared, SourceTracker& src,
                    std::uint16_t src_index);
  void apply_prepared(const DecodedBatch& batch, PreparedBatch& prepared, SourceTracker& src,
                      std::uint16_t src_index);
  void close_region(const OpenRegion& r, std::int64_t end_ns, bool end_on_time,
                    std::uint16_t src_index);
  void finish_source(SourceTracker& src, std::uint16_t src_index, std::int64_t at_ns);
  void refresh_rank_state();
  void add_interval(std::int64_t a, std::int64_t b, ClassMask mask) {
    const auto m = static_cast<ClassMask>(mask & kMetricClasses);
    if (m != 0 && a < b) batch_.add(a, b, m);
  }
  // Merges the batch's intervals into the map and the cell histograms.
  void flush_intervals();
  void add_fetch_step(const OpenRegion& r, std::int64_t end_ns, bool end_on_time);
  void add_gpu_counter(const Event& ev, std::int64_t ts, double value);
  std::int64_t lower_bound_ns() const;

  // rank_finalize.cc
  template <class Emit>
  void overlay(std::int64_t from, std::int64_t to, Emit&& emit) const;
  void add_to_bulk(std::int64_t len, ClassMask old_mask, ClassMask new_mask);
  void finalize_to(std::int64_t horizon_ns);
  void push_cell(std::int64_t k, const CellData& c);
  void push_step(const StepTracker::Step& s);
  void expire_orphan_ends(std::int64_t horizon_ns);
  PendingCells pending_cells(std::int64_t t_ns) const;

  // rank_metrics.cc
  WindowMetrics window_metrics(const WindowAccumulator& acc, std::int64_t t_ns,
                               const PendingCells& pending) const;
  ProcessSnapshot process_snapshot(const SourceTracker& src) const;

  std::int64_t cell_of(std::int64_t t) const;

  std::string job_;
  std::int32_t rank_;
  const EngineConfig& config_;
  ClassCache& classes_;
  BatchCoverage& batch_;
  TimelineBlockPool& blocks_;  // the engine's, shared like batch_
  SpecialNames names_;
  std::int64_t res_;

  std::vector<SourceTracker> sources_;
  std::size_t last_source_ = 0;
  bool has_start_ = false;
  std::int64_t start_ns_ = 0;
  std::int64_t watermark_ns_ = kNoTime;
  std::int64_t horizon_ns_ = kNoTime;
  bool finished_ = false;
  std::int64_t end_ns_ = 0;
  std::int64_t last_seen_ns_ = 0;
  DeviceSignal device_ = DeviceSignal::kComputeProxy;

  CoverageMap map_;
  PendingHistograms pending_;  // per cell, from the map
  // Time before bulk_before_ns_ that a big watermark jump is about to push out
  // of the history: kept as one histogram that only the totals receive.
  MaskHistogram bulk_{};
  std::int64_t bulk_before_ns_ = kNoTime;
  FinalizedHistory history_;
  std::vector<WindowAccumulator> windows_;  // configured windows, then the totals
  StepTracker steps_;
  TimelineStore timeline_;
  GpuCounterTracker gpu_;
  std::int64_t epoch_ = -1;
  std::int64_t epoch_ts_ = kNoTime;
  std::int64_t step_ = -1;
  std::int64_t step_ts_ = kNoTime;

  // Regions closed by a batch's End events: they go to the timeline after
  // the batch's Complete regions, in every walk, so the timeline (and what
  // its bound drops) is the same with or without a PreparedBatch.
  std::vector<TimelineEntry> closed_;

  mutable std::vector<OverlayPiece> scratch_open_;
  mutable std::vector<Edge> scratch_edges_;
  mutable std::vector<OverlayPiece> scratch_pieces_;
  mutable std::vector<MaskHistogram> scratch_hists_;
};

}  // namespace stallwatch::collector::detail
