// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/snapshot.h"
#include "open_regions.h"

namespace stallwatch::collector::detail {

inline constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();

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
  // It sent DEVICE_BUSY time since its declared device source last changed.
  bool device_events = false;
  OpenRegions open;
  // Its file names: the agent's file id -> the path (posix_file marks), at
  // most EngineConfig::max_files_per_source (EventWalk enforces it).
  std::unordered_map<std::uint32_t, NameId> files;
};

// The processes of one rank and what the rank's lifetime is made of: each
// source's identity, counters, sequence numbers, watermark and final batch;
// the rank's start (its earliest source, never moved before the finalized
// horizon), its watermark (the latest of its sources'), its end and finished
// state (every source sent its final batch), when it was last seen, and the
// rank's device signal: what its sources declare (CUPTI over CUDA events),
// else its own device-busy events (`trace`), else the compute proxy.
//
// Holds each source's open regions but does not pair Begin and End events
// (EventWalk does) nor lay them over the time line (OpenOverlay does); of
// them it only drops the orphan Ends a horizon passed. Sources are never
// removed: a source's index (the timeline's tag) stays valid for the rank's
// life.
//
// Single-threaded; owned by one RankTracker. Bounded by max_sources_per_rank.
class RankSources {
 public:
  explicit RankSources(std::size_t max_sources) : max_sources_(max_sources) {}

  // The source that sent `info` (same host and pid), or nullptr; sets `index`
  // to its position.
  SourceTracker* find(const SourceInfo& info, std::size_t& index) {
    if (last_ < sources_.size()) {
      SourceTracker& s = sources_[last_];
      if (s.info.pid == info.pid && s.info.host == info.host) {
        index = last_;
        return &s;
      }
    }
    return find_slow(info, index);
  }
  // Whether the rank has max_sources sources: a new one is refused.
  bool full() const { return sources_.size() >= max_sources_; }
  // A new source (the rank is not full) for `batch`, whose earliest time is
  // `first_time_ns`. Its start is the one it claims, unless that is after
  // its first batch or unknown. Sets `index` to its position.
  SourceTracker& add(const DecodedBatch& batch, std::int64_t first_time_ns, std::size_t& index);
  // A further batch from `src`: counts a gap in the sequence numbers as lost
  // batches (a lower number is a restarted process) and takes its role,
  // device source and version.
  void continue_with(SourceTracker& src, const DecodedBatch& batch);
  // Counts a batch of `events` events from the source at `index`, received
  // at `now_ns` (collector clock); a batch that is not final reopens a
  // finished source.
  void receive(SourceTracker& src, std::size_t index, const DecodedBatch& batch,
               std::int64_t now_ns, std::size_t events);
  // Moves the source's watermark, and the rank's, to `sent_at_ns` if later.
  void advance_watermark(SourceTracker& src, std::int64_t sent_at_ns) {
    src.watermark_ns = std::max(src.watermark_ns, sent_at_ns);
    watermark_ns_ = std::max(watermark_ns_, src.watermark_ns);
  }
  // The source's batch added DEVICE_BUSY time: with no declared device
  // source, the rank is judged on its own device events from now on.
  void saw_device_events(SourceTracker& src) {
    if (src.device_events) return;
    src.device_events = true;
    refresh_device();
  }
  // Its final batch, sent at `at_ns`: the source is finished (its open
  // regions must have been ended and cleared by then).
  void finish(SourceTracker& src, std::int64_t at_ns) {
    src.finished = true;
    src.final_at_ns = at_ns;
  }
  // Recomputes whether the rank is finished and its end: the latest final
  // batch or watermark of its sources, never before its start.
  void refresh_state();
  // Moves the rank's start to `start_ns` when that is earlier, but once
  // there is a finalized horizon not before it; the first call sets it.
  // Returns whether the start moved.
  bool lower_start(std::int64_t start_ns, std::int64_t horizon_ns);
  // Drops the orphan Ends (Ends still waiting for their Begin) that arrived
  // before `horizon_ns`, counting each as unpaired.
  void expire_orphan_ends(std::int64_t horizon_ns);

  bool has_start() const { return has_start_; }
  std::int64_t start_ns() const { return start_ns_; }
  std::int64_t watermark_ns() const { return watermark_ns_; }
  bool finished() const { return finished_; }
  std::int64_t end_ns() const { return end_ns_; }
  std::int64_t last_seen_ns() const { return last_seen_ns_; }
  DeviceSignal device() const { return device_; }
  RankState state(std::int64_t now_ns, std::int64_t silent_after_ns) const;
  std::uint64_t late_events() const;

  std::size_t size() const { return sources_.size(); }
  const SourceTracker& operator[](std::size_t i) const { return sources_[i]; }
  const std::vector<SourceTracker>& all() const { return sources_; }

  // The rank's lifetime, each process and the counters summed over them.
  void describe(RankSnapshot& out) const;
  // Heap memory held.
  std::size_t bytes() const;

 private:
  SourceTracker* find_slow(const SourceInfo& info, std::size_t& index);
  void refresh_device();

  std::size_t max_sources_;
  std::vector<SourceTracker> sources_;
  std::size_t last_ = 0;  // the source of the previous batch
  bool has_start_ = false;
  std::int64_t start_ns_ = 0;
  std::int64_t watermark_ns_ = kNoTime;
  bool finished_ = false;
  std::int64_t end_ns_ = 0;
  std::int64_t last_seen_ns_ = 0;
  DeviceSignal device_ = DeviceSignal::kComputeProxy;
};

}  // namespace stallwatch::collector::detail
