// SPDX-License-Identifier: MIT
#pragma once

// A job's fields formed from its ranks: what Engine::tick() does for every
// job, and what a head (collector/tree) does again after it has merged the
// ranks its nodes sent, so that a job spread over nodes is summarized exactly
// as one collector would summarize it.

#include <cstddef>

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

}  // namespace stallwatch::collector
