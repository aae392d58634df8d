// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dfanalyzer_bins.h"
#include "engine/event_class.h"
#include "engine_view.h"
#include "rank_analysis.h"

namespace stallwatch::collector {

// Reads every rank of `plan` (analyze_rank) into `out`, in plan order, and
// feeds `view` (when given) every event. With threads <= 1 (or one rank) all
// of it runs on the calling thread. Otherwise up to `threads` reading threads
// each take whole ranks, biggest first, with their own classifier and a
// ShippingSink; the calling thread feeds the engine view from a bounded
// BatchChannel meanwhile. Memory: per reading thread its readers' buffers and
// one rank's pending state, plus the channel's slots.
//
// Returns "" or the first unreadable file (in plan order).
std::string analyze_ranks(const TracePlan& plan, const ClassMapping& mapping,
                          const DfAnalysisOptions& options, EngineView* view, std::size_t threads,
                          std::vector<RankAnalysis>& out);

// Bins every dftracer rank of `plan` from `origin_ns` into `bins` (ranks in
// parallel as above, without an engine view); "" or an unreadable file.
std::string bin_ranks(const TracePlan& plan, const ClassMapping& mapping, std::size_t threads,
                      std::int64_t origin_ns, std::int64_t granularity_ns, BinnedTimes& bins);

}  // namespace stallwatch::collector
