// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "batch_coverage.h"
#include "class_cache.h"
#include "device_lane_counters.h"
#include "engine/batch_preparer.h"
#include "engine/decoded_batch.h"
#include "engine/engine.h"
#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "engine/snapshot.h"
#include "engine/timeline_store.h"
#include "event_walk.h"
#include "file_io_tracker.h"
#include "finalized_counters.h"
#include "io_volume_tracker.h"
#include "kernel_tracker.h"
#include "launch_tracker.h"
#include "peer_wait.h"
#include "rank_sources.h"
#include "training_progress.h"
#include "window_finalizer.h"

namespace stallwatch::collector::detail {

// Name ids the engine gives a meaning to (interned once at construction).
struct SpecialNames {
  NameId step_mark = NameTable::kEmpty;
  NameId epoch_start = NameTable::kEmpty;
  NameId batch_size = NameTable::kEmpty;
  std::array<NameId, kGpuCounterCount> gpu_counters{};  // by GpuCounter
  IoCallNames io_calls;
  NameId cuda_runtime = NameTable::kEmpty;  // cat of launch calls
};

// Everything the engine keeps for one rank (job, rank), wired together:
//   - RankSources: its processes, watermarks, lifetime and device signal (a
//     batch that adds DEVICE_BUSY time marks its source as one with device
//     events);
//   - EventWalk: applies each batch's events to the parts below;
//   - TimelineStore: the raw regions and marks for the timeline view;
//   - TrainingProgress: steps, the current step and epoch;
//   - IoVolumeTracker: bytes and calls of read and write calls not yet
//     finalized;
//   - LaunchTracker: kernel launches paired with their work, not yet
//     finalized;
//   - FileIoTracker: the I/O calls per file, for the top files by I/O time;
//   - KernelTracker: the device work per name, for the top kernels by device
//     time;
//   - DeviceLaneCounters: NVML samples;
//   - WindowFinalizer: the exact window sums, split at the finalized
//     horizon;
//   - FinalizedCounters: the cumulative sums over the finalized time that
//     Prometheus counters are made of.
// The horizon is the rank's watermark minus the lateness, rounded down to
// the resolution grid; what arrives with a time before it is late (counted,
// and only its part from the horizon on is used). Consequences, by design:
//   - an open region is final up to its source's watermark as known when
//     the horizon passes; a source whose batches (heartbeats included)
//     arrive later than the lateness loses that stretch, exactly as it
//     would lose late events;
//   - a Complete region longer than the lateness always arrives partly late
//     (it is sent when it ends) and is clipped: long regions should be sent
//     as Begin/End, which count while open.
// It also turns their state into the rank's snapshot, timeline and series.
//
// Single-threaded; owned by the Engine, whose class cache, BatchCoverage and
// timeline block pool it shares with the other ranks (each ingest() leaves
// the BatchCoverage empty). Memory is bounded by the lateness, the history,
// the timeline and the configured limits, not by run length. Not copyable or
// movable: its parts refer to each other.
class RankTracker {
 public:
  RankTracker(std::string job, std::int32_t rank, const EngineConfig& config, ClassCache& classes,
              BatchCoverage& batch, TimelineBlockPool& blocks, const SpecialNames& names);
  RankTracker(const RankTracker&) = delete;
  RankTracker& operator=(const RankTracker&) = delete;

  const std::string& job() const { return job_; }
  std::int32_t rank() const { return rank_; }

  // Applies one batch; false (nothing applied) when its source is new and the
  // rank already has max_sources_per_rank sources.
  // `prepared`: null, or prepared for this batch (its spans are moved out).
  bool ingest(const DecodedBatch& batch, std::int64_t now_ns, PreparedBatch* prepared);

  // Finalizes a finished rank up to its end (rounded up to the grid) once
  // the lateness has passed on the collector's clock since its last source
  // finished: until then a source that joins late (a worker's first batch
  // after its parent's last) still counts. A source that joins later still
  // is late for the time before that horizon, like any late batch.
  void settle(std::int64_t now_ns);

  RankState state(std::int64_t now_ns) const {
    return sources_.state(now_ns, config_.silent_after_ns);
  }
  std::int64_t last_seen_ns() const { return sources_.last_seen_ns(); }
  std::size_t source_count() const { return sources_.size(); }
  std::uint64_t late_events() const { return sources_.late_events(); }
  // The host of the rank's main process, else of its first one ("" before any).
  const std::string& host() const;
  // Where this rank's windows end: the watermark rounded down to the grid,
  // or, once finished, its end rounded up.
  std::int64_t window_end_ns() const;

  // Slides the windows to window_end_ns(), expires old timeline entries and
  // returns the rank's metrics for `windows_ns` (configured order, 0 = totals).
  // File paths are read from `names`.
  RankSnapshot snapshot(std::int64_t now_ns, std::size_t verdict_index, const NameTable& names);

  Timeline timeline(const NameTable& names, std::int64_t seconds) const;

  // Its closed COMM regions the timeline keeps, keyed by step (peer_wait.h):
  // read at tick time for peer_wait_seconds, never on the ingest path.
  std::vector<CommCall> comm_calls() const;

  // Appends to `out` the value of WindowMetrics field `metric` (an index into
  // Engine::series_metric_names()) over [t - window, t) for each t of `t_ns`
  // (window 0 = since the start); NaN where unknown or the window is empty.
  // Step percentiles read as the mean step time.
  void series(std::size_t metric, std::int64_t window_ns, const std::vector<std::int64_t>& t_ns,
              std::vector<double>& out) const;

  std::size_t approx_bytes() const;

 private:
  // The finalized horizon for a rank watermark of `watermark_ns`.
  std::int64_t horizon_for(std::int64_t watermark_ns) const;
  // Moves the finalized horizon to `horizon` if that is later.
  void advance_horizon(std::int64_t horizon);
  PendingCells pending_cells(std::int64_t t_ns) const {
    return windows_.pending_cells(t_ns, sources_.all(), progress_.steps(), io_, launches_);
  }
  WindowMetrics window_metrics(const WindowAccumulator& acc, std::int64_t t_ns,
                               const PendingCells& pending) const;
  std::int64_t cell_of(std::int64_t t) const;
  // The top files of the configured windows ending at `t_ns` and the totals
  // (slides the files' running window sums there).
  std::vector<TopFiles> top_files(std::int64_t t_ns, const NameTable& names);
  // The top kernels of the configured windows ending at `t_ns` (slides the
  // kernels' running window sums there).
  std::vector<TopKernels> top_kernels(std::int64_t t_ns, const NameTable& names);
  // Whether the rank has IO-class time since its start (finalized or pending).
  bool io_captured(const PendingCells& pending) const;

  std::string job_;
  std::int32_t rank_;
  const EngineConfig& config_;
  BatchCoverage& batch_;
  TimelineBlockPool& blocks_;  // the engine's, shared like batch_
  std::int64_t res_;
  NameId step_mark_;

  RankSources sources_;
  TimelineStore timeline_;
  TrainingProgress progress_;
  DeviceLaneCounters gpu_;
  IoVolumeTracker io_;
  LaunchTracker launches_;
  FileIoTracker files_;
  KernelTracker kernels_;
  // Writes to timeline_, progress_, gpu_, io_, launches_, files_, kernels_ and batch_.
  EventWalk walk_;
  WindowFinalizer windows_;
  FinalizedCounters finalized_;
  // The collector time at which every source had finished (kNoTime while
  // one is running).
  std::int64_t finished_since_ns_ = kNoTime;
};

}  // namespace stallwatch::collector::detail
