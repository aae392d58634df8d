// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/engine_config.h"
#include "engine/snapshot.h"
#include "peer_wait.h"

namespace stallwatch::collector::detail {

// The cross-rank part of a job's snapshot, done once per tick (never on the
// ingest path): waiting for peers per rank and window, the verdicts it
// changes, and who holds the job back. Pure; called by Engine::tick.
class JobPeers {
 public:
  // `calls[i]` are the COMM calls of `ranks[i]` (their clock offsets
  // included). Sets each rank window's peer_wait_seconds (windows up to
  // config.timeline_ns; NaN beyond and for the totals), re-judges its
  // verdict, and the rank's headline verdict from `verdict_index`.
  JobPeers(std::span<RankSnapshot> ranks, std::span<const RankCalls> calls,
           const EngineConfig& config, std::size_t verdict_index);

  // Fills `job_window` (of window `index`, aggregated over `ranks` already):
  // the mean and max peer wait, and held_back.
  void fill(std::span<const RankSnapshot> ranks, std::size_t index, JobWindow& job_window) const;

 private:
  // blame_ns_[rank][window]: the waiting the rank's late arrivals caused.
  std::vector<std::vector<std::int64_t>> blame_ns_;
  StragglerThresholds thresholds_;
  VerdictThresholds verdict_;
};

}  // namespace stallwatch::collector::detail
