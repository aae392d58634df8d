// SPDX-License-Identifier: MIT
#pragma once

// A job's series at a collector tree's head (docs/api.md, "Collector tree"):
// the head asks each node that owns ranks of the job for its
// `GET /api/v1/jobs/{job}/series` answer, decodes it (parse_series_json) and
// puts the nodes' ranks and its own on one grid of its clock
// (merge_series). Pure: no sockets, no clocks.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace stallwatch::collector {

// A node's /series answer: its ranks on its own clock (`window_ns` is left 0:
// the answer names the window), and the nodes below it (a nested head's)
// that it could not ask, as (node, why).
struct NodeSeries {
  Series series;
  std::vector<std::pair<std::string, std::string>> failed_nodes;
};

// Decodes a /series answer. Times are rounded to its `step_seconds`, exact
// for the engine's grid. Returns "" or what is wrong with it.
std::string parse_series_json(std::string_view json, NodeSeries& out);

// Keeps only `ranks` (sorted) of `series`.
void keep_ranks(Series& series, std::span<const std::int32_t> ranks);

// One series to merge and its collector's clock minus the head's.
struct SeriesPart {
  const Series* series = nullptr;
  std::int64_t clock_offset_ns = 0;
};

// The parts' ranks on one grid of `step_ns` (every part's step): `points`
// points ending at the latest end among the parts, each part's times minus
// its offset rounded to the step, as Engine::series does for hosts. A point
// a part did not cover is NaN for its ranks. Ranks sorted; a rank in two
// parts takes the first one's values. Mean and max over all ranks, as
// Engine::series forms them. Job, metric and window from the first part.
// nullopt without a part that has points.
std::optional<Series> merge_series(std::span<const SeriesPart> parts, std::int64_t step_ns,
                                   std::int64_t points);

// `offset_ns` rounded to the nearest multiple of `step_ns` (halves away from 0).
std::int64_t round_to_step(std::int64_t offset_ns, std::int64_t step_ns);

}  // namespace stallwatch::collector
