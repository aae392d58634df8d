// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "batch_coverage.h"
#include "class_cache.h"
#include "device_lane_counters.h"
#include "engine/batch_preparer.h"
#include "engine/decoded_batch.h"
#include "engine/timeline_store.h"
#include "file_io_tracker.h"
#include "io_volume_tracker.h"
#include "kernel_tracker.h"
#include "launch_tracker.h"
#include "open_regions.h"
#include "rank_sources.h"
#include "training_progress.h"

namespace stallwatch::collector::detail {

// What one batch's events are clipped against; fixed while it is applied.
struct WalkBounds {
  std::int64_t horizon_ns = kNoTime;  // the finalized horizon; kNoTime: nothing is late yet
  std::int64_t start_ns = 0;          // the rank's start
  // Where counted time begins.
  std::int64_t lower_ns() const { return std::max(horizon_ns, start_ns); }
};

// Applies the events of a rank's batches, one source's batch at a time:
//   - times are clamped and cut at the source's watermark (or the batch's
//     sent_at when later); an event before the horizon is late: counted, and
//     of a region only the part from the lower bound on is used, while a
//     late mark or counter is dropped;
//   - a Complete region, or a Begin paired with its End through the source's
//     open regions, adds its interval (metric classes, from the lower bound)
//     to the engine's BatchCoverage and its entry to the rank's timeline; an
//     End may come before its Begin (it waits as an orphan End); a Begin
//     whose key is reused, or one past max_open_regions_per_source, counts
//     as unpaired;
//   - marks go to the timeline and to the rank's TrainingProgress; counters
//     are the batch size or NVML samples (DeviceLaneCounters); the end of a
//     main-thread FETCH region is a step for a rank without step marks;
//   - a read or write call (IoCallNames) closed by an End that was on time,
//     or a Complete one with wire::kEventFlagCompleteValue ending at or after the
//     horizon, not before the rank's start, adds the bytes its End (or the
//     Complete) carries to the rank's IoVolumeTracker at its end;
//   - a Complete with wire::kEventFlagCorrelation goes to the rank's
//     LaunchTracker: a launch call when its cat is `cuda_runtime`, else the
//     device work it launched, which, when it ends at or after the horizon
//     and the rank's start, also adds its duration under its name to the
//     rank's KernelTracker at its end;
//   - any POSIX or stdio call on a file (a Complete with
//     wire::kEventFlagCompleteValue and a file id in region_id, or a Begin
//     with the file id as its value) that counts by the same rule adds its
//     duration, bytes and one call to the rank's FileIoTracker at its end;
//     a posix_file mark names a file id for its source (late or not), up to
//     max_files_per_source ids per source.
// Regions closed by End events reach the timeline after the batch's Complete
// regions, in every walk, so the timeline (and what its bound drops) is the
// same with or without a PreparedBatch.
//
// Single-threaded; owned by one RankTracker, whose timeline, progress and
// counters it writes through the references it was built with (the class
// cache and the BatchCoverage are the engine's, shared by its ranks). It
// does not merge the intervals into the rank's coverage (WindowFinalizer
// takes them from the BatchCoverage after the batch), move watermarks or
// finalize anything.
class EventWalk {
 public:
  EventWalk(ClassCache& classes, BatchCoverage& coverage, TimelineStore& timeline,
            TrainingProgress& progress, DeviceLaneCounters& gpu, std::size_t max_open_regions,
            const IoCallNames& io_calls, IoVolumeTracker& io, NameId cuda_runtime,
            LaunchTracker& launches, FileIoTracker& files, std::size_t max_files,
            KernelTracker& kernels)
      : classes_(classes),
        coverage_(coverage),
        timeline_(timeline),
        progress_(progress),
        gpu_(gpu),
        max_open_(max_open_regions),
        io_calls_(io_calls),
        io_(io),
        cuda_runtime_(cuda_runtime),
        launches_(launches),
        files_(files),
        max_files_(max_files),
        kernels_(kernels) {}
  EventWalk(const EventWalk&) = delete;
  EventWalk& operator=(const EventWalk&) = delete;

  // Applies `batch` from `src`, the rank's source `src_index`, before the
  // source's watermark moves to the batch's sent_at. `prepared`: null, or
  // prepared for this very batch (its spans and timeline block are moved
  // out).
  void apply(const DecodedBatch& batch, PreparedBatch* prepared, SourceTracker& src,
             std::uint16_t src_index, WalkBounds bounds);
  // The source's final batch, sent at `at_ns`: its open regions end there
  // and count as unpaired (orphan Ends only count); clears them.
  void end_open_regions(SourceTracker& src, std::uint16_t src_index, std::int64_t at_ns,
                        WalkBounds bounds);

  std::size_t bytes() const { return closed_.capacity() * sizeof(TimelineEntry); }

 private:
  // How walk() goes through a batch:
  //   kPlain     every event, classified here;
  //   kMasks     every event, with a PreparedBatch's masks;
  //   kSpecial   a PreparedBatch with regions_ready: only its special events
  //              (its Complete regions are in already, apply_prepared).
  enum class Walk { kPlain, kMasks, kSpecial };
  template <Walk kWalk>
  void walk(const DecodedBatch& batch, const PreparedBatch* prepared, SourceTracker& src,
            std::uint16_t src_index, WalkBounds bounds);
  void apply_prepared(const DecodedBatch& batch, PreparedBatch& prepared, SourceTracker& src,
                      std::uint16_t src_index, WalkBounds bounds);
  void close_region(const OpenRegion& r, std::int64_t end_ns, std::int64_t end_value,
                    bool end_on_time, bool loop_end, std::uint16_t src_index, WalkBounds bounds);
  // A posix_file mark: `value` names file id `path` in `src`.
  void name_file(SourceTracker& src, std::int64_t value, NameId path) const;

  ClassCache& classes_;
  BatchCoverage& coverage_;
  TimelineStore& timeline_;
  TrainingProgress& progress_;
  DeviceLaneCounters& gpu_;
  std::size_t max_open_;
  const IoCallNames& io_calls_;
  IoVolumeTracker& io_;
  NameId cuda_runtime_;
  LaunchTracker& launches_;
  FileIoTracker& files_;
  std::size_t max_files_;
  KernelTracker& kernels_;
  // Regions closed by the batch's End events, for the timeline after the
  // batch's Complete regions.
  std::vector<TimelineEntry> closed_;
};

}  // namespace stallwatch::collector::detail
