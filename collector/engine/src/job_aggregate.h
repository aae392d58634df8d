// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <span>

#include "engine/engine_config.h"
#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// One window of a job: per metric the mean and the max over its ranks with
// wall > 0, ignoring NaN entries (a field with no defined entry is NaN); the
// straggler is the rank with the largest step_seconds_p50 among ranks with
// steps, named only when at least two ranks have steps; the job verdict is
// the verdict of the mean.
JobWindow aggregate_job_window(std::span<const RankSnapshot> ranks, std::size_t window_index,
                               const VerdictThresholds& thresholds);

}  // namespace stallwatch::collector::detail
