// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dfanalyzer_bins.h"
#include "engine/event_class.h"
#include "rank_intervals.h"
#include "traces/cached_classifier.h"
#include "traces/read_stats.h"
#include "traces/trace_plan.h"
#include "traces/trace_sink.h"

namespace stallwatch::collector {

using ClassCounts = std::array<std::uint64_t, kEventClassCount>;

struct DfRankSummary {
  std::int64_t rank = 0;
  std::string host;
  std::int64_t main_pid = -1;
  std::int64_t start_ns = 0;  // first complete event's start
  std::int64_t end_ns = 0;    // last complete event's end
  std::uint64_t events = 0;
  ClassCounts ops{};  // complete events per class
  IntervalTotals exact;
  std::uint64_t late_intervals = 0;  // arrived after their time was sealed; redone exactly
  std::size_t peak_open_intervals = 0;
};

// DFAnalyzer's summary for a set of dftracer traces: time fields are exact
// unions per rank, summed over ranks (DFAnalyzer's sums); job time is last end
// minus first start over all ranks.
struct DfJobSummary {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t events = 0;
  ClassCounts ops{};
  IntervalTotals exact;
  std::vector<DfRankSummary> ranks;
  std::optional<BinnedTotals> binned;  // with a granularity
  int passes = 1;                      // reads of the slowest rank
};

struct DfAnalysisOptions {
  std::int64_t granularity_ns = 0;           // 0: no binned approximation
  std::int64_t horizon_ns = 60'000'000'000;  // how far back late events may reach before a re-read
};

// One rank's part of the summary, independent of every other rank (so ranks
// can be read on different threads).
struct DfRankResult {
  DfRankSummary summary;
  int passes = 1;
  std::optional<BinnedTimes> binned;  // with a granularity: this rank's bins
  bool binned_ok = true;              // false: an event started before the bin origin
};

// Streams every dftracer rank of `plan` once (twice for a rank whose events
// reach further back than the horizon) and fills `out`. `sink`, when given,
// sees every event of the first pass. Returns "" or the message of an
// unreadable file; per-file statistics are appended to `stats`.
std::string summarize_dftracer(const TracePlan& plan, CachedClassifier& classifier,
                               const DfAnalysisOptions& options, TraceSink* sink, DfJobSummary& out,
                               std::vector<ReadStats>& stats);

// The pieces of summarize_dftracer(), for callers that read ranks in
// parallel: the binning origin guessed from the files' first records; one
// rank's result (its files' statistics appended to `stats`); the job summary
// from every rank's result in plan order. finish_dftracer() re-reads the
// ranks (through `rebin`) only when the guessed origin was wrong.
// summarize_dftracer() is these run one rank after the other.
std::int64_t dftracer_bin_origin_guess(const TracePlan& plan);
std::string summarize_dftracer_rank(const TracePlan& plan, const RankGroup& group,
                                    CachedClassifier& classifier, const DfAnalysisOptions& options,
                                    std::int64_t bin_origin_ns, TraceSink* sink, DfRankResult& out,
                                    std::vector<ReadStats>& stats);
// Bins every event of one rank from `origin_ns`; "" or an unreadable file.
std::string bin_dftracer_rank(const TracePlan& plan, const RankGroup& group,
                              CachedClassifier& classifier, BinnedTimes& bins);
// Bins every dftracer rank of the plan from `origin_ns` into `bins`; "" or an
// unreadable file.
using RebinRanks = std::function<std::string(std::int64_t origin_ns, BinnedTimes& bins)>;
std::string finish_dftracer(const TracePlan& plan, const DfAnalysisOptions& options,
                            std::vector<DfRankResult>& ranks, const RebinRanks& rebin,
                            DfJobSummary& out);

}  // namespace stallwatch::collector
