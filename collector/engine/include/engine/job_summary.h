// SPDX-License-Identifier: MIT
#pragma once

// A job's fields formed from its ranks: what Engine::tick() does for every
// job, and what a head (collector/tree) does again after it has merged the
// ranks its nodes sent, so that a job spread over nodes is summarized exactly
// as one collector would summarize it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/engine.h"
#include "engine/engine_config.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// Adds `c` to `to`, field by field.
void add_counters(Counters& to, const Counters& c);

// Sets job.state, start_ns, last_seen_ns, counters, windows (one per
// `window_count`, from the ranks' rows) and verdict (of window
// `verdict_index`) from job.ranks, replacing what they held.
void summarize_job(JobSnapshot& job, std::size_t window_count, std::size_t verdict_index,
                   const VerdictThresholds& thresholds);

// summarize_job() with the cross-rank part: matches the ranks' comm_calls
// (each on its rank's clock, less its clock_offset_ns) into collectives and
// sets each rank's peer_waits, each rank window's peer_wait_seconds and
// verdict, the rank's headline verdict, and each job window's peer wait and
// held_back (docs/api.md, "peer_wait_seconds" and "held_back"). What
// Engine::tick() does per job, and a head again over the ranks of all its
// nodes.
void summarize_job_with_peers(JobSnapshot& job, std::size_t window_count, std::size_t verdict_index,
                              const EngineConfig& config);

// The waits for peers of `rank` of `job` (sorted, on the rank's clock) that
// reach into [from_ns, to_ns], as summarize_job_with_peers() set them (no
// matching again): what a timeline of the rank shows. Empty for a rank not
// in the job.
std::vector<PeerWaitSpan> job_peer_waits(const JobSnapshot& job, std::int32_t rank,
                                         std::int64_t from_ns, std::int64_t to_ns);

}  // namespace stallwatch::collector
