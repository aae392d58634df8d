// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dfanalyzer_summary.h"
#include "hta_breakdown.h"
#include "traces/cached_classifier.h"
#include "traces/read_stats.h"
#include "traces/trace_plan.h"
#include "traces/trace_sink.h"

namespace stallwatch::collector {

// What reading one rank produced: the dftracer summary's part of it or the
// HTA collector of a Kineto rank, and the rank's per-file statistics.
struct RankAnalysis {
  std::string error;  // an unreadable file; nothing else is meaningful then
  std::optional<DfRankResult> dftracer;
  std::optional<HtaTraceCollector> hta;
  std::vector<ReadStats> stats;
};

// Reads one rank of `plan` for the analyses of its format, feeding `sink`
// (when given) every event of the first read. Touches nothing shared but the
// plan (read only), so different ranks may be read on different threads, each
// with its own classifier and sink.
RankAnalysis analyze_rank(const TracePlan& plan, const RankGroup& group,
                          CachedClassifier& classifier, const DfAnalysisOptions& options,
                          std::int64_t bin_origin_ns, TraceSink* sink);

}  // namespace stallwatch::collector
