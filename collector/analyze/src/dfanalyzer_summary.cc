// SPDX-License-Identifier: MIT
#include "dfanalyzer_summary.h"

#include <algorithm>
#include <limits>

namespace stallwatch::collector {

namespace {

constexpr ClassMask kTracked =
    static_cast<ClassMask>(class_bit(EventClass::kCompute) | class_bit(EventClass::kAppIo) |
                           class_bit(EventClass::kIo) | class_bit(EventClass::kFetch) |
                           class_bit(EventClass::kDeviceBusy) | class_bit(EventClass::kComm));

struct LateInterval {
  std::uint64_t ordinal = 0;
  ClassMask classes = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
};

// What one read of a rank feeds besides the exact intervals.
struct PassExtras {
  TraceSink* sink = nullptr;
  BinnedTimes* binned = nullptr;
  bool binned_ok = true;
  std::vector<ReadStats>* stats = nullptr;
};

std::string read_rank(const TracePlan& plan, const RankGroup& group, CachedClassifier& classifier,
                      const DfAnalysisOptions& options, const std::vector<LateInterval>& early,
                      std::vector<LateInterval>& late, PassExtras& extras, DfRankSummary& rank) {
  RankStream stream(plan, group);
  if (auto err = stream.open(); !err.empty()) return err;
  RankIntervals intervals(options.horizon_ns);
  for (const LateInterval& iv : early)
    intervals.add_early(iv.classes, iv.start, iv.end);
  auto next_early = early.begin();

  rank = DfRankSummary{};
  rank.rank = group.rank;
  rank.host = group.host;
  rank.main_pid = group.main_pid;
  rank.start_ns = std::numeric_limits<std::int64_t>::max();
  rank.end_ns = std::numeric_limits<std::int64_t>::min();
  if (extras.sink != nullptr) extras.sink->begin_rank(group);

  std::uint64_t ordinal = 0;
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  while (stream.next(event, file)) {
    ++rank.events;
    ClassMask classes = 0;
    if (event->kind == TraceEventKind::kComplete) {
      const bool main_thread = event->os_pid == group.main_pid && event->tid == event->os_pid;
      classes = classifier.classify(event->cat, event->name, main_thread);
      rank.start_ns = std::min(rank.start_ns, event->ts_ns);
      rank.end_ns = std::max(rank.end_ns, event->end_ns());
      for (int c = 0; c < kEventClassCount; ++c) {
        if ((classes & (1u << c)) != 0) ++rank.ops[static_cast<std::size_t>(c)];
      }
      if (extras.binned != nullptr && extras.binned_ok) {
        extras.binned_ok =
            extras.binned->add(event->pid, event->tid, event->ts_ns, event->dur_ns, classes);
      }
      const ClassMask tracked = classes & kTracked;
      const std::uint64_t this_ordinal = ordinal++;
      if (next_early != early.end() && next_early->ordinal == this_ordinal) {
        ++next_early;
        intervals.add(0, 0, 0);  // keeps the sealing schedule of the first pass
      } else if (tracked != 0 && !intervals.add(tracked, event->ts_ns, event->end_ns())) {
        late.push_back({this_ordinal, tracked, event->ts_ns, event->end_ns()});
      }
      intervals.advance(event->end_ns());
    }
    if (extras.sink != nullptr) extras.sink->event(group, *file, *event, classes);
  }
  if (!stream.error().empty()) return stream.error();
  if (extras.sink != nullptr) extras.sink->end_rank(group);
  if (extras.stats != nullptr) {
    for (auto& s : stream.stats())
      extras.stats->push_back(std::move(s));
  }
  rank.exact = intervals.finish();
  rank.peak_open_intervals = intervals.peak_pending();
  if (rank.start_ns > rank.end_ns) rank.start_ns = rank.end_ns = 0;
  return {};
}

}  // namespace

std::int64_t dftracer_bin_origin_guess(const TracePlan& plan) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const RankGroup& group : plan.ranks) {
    if (group.format != TraceFormat::kDftracer) continue;
    for (std::size_t index : group.sources) {
      origin = std::min(origin, plan.sources[index].first_ts_ns);
    }
  }
  return origin;
}

std::string summarize_dftracer_rank(const TracePlan& plan, const RankGroup& group,
                                    CachedClassifier& classifier, const DfAnalysisOptions& options,
                                    std::int64_t bin_origin_ns, TraceSink* sink, DfRankResult& out,
                                    std::vector<ReadStats>& stats) {
  out = DfRankResult{};
  if (options.granularity_ns > 0) out.binned.emplace(bin_origin_ns, options.granularity_ns);
  std::vector<LateInterval> late;
  PassExtras first;
  first.sink = sink;
  first.binned = out.binned ? &*out.binned : nullptr;
  first.stats = &stats;
  if (auto err = read_rank(plan, group, classifier, options, {}, late, first, out.summary);
      !err.empty()) {
    return err;
  }
  out.binned_ok = first.binned_ok;
  if (!late.empty()) {
    // Some intervals reached into sealed time: read the rank again with them
    // added up front, so every sealed stretch is measured complete.
    std::vector<LateInterval> again;
    PassExtras second;
    const std::vector<LateInterval> early = late;
    if (auto err = read_rank(plan, group, classifier, options, early, again, second, out.summary);
        !err.empty()) {
      return err;
    }
    out.summary.late_intervals = late.size();
    out.passes = 2;
  }
  return {};
}

std::string bin_dftracer_rank(const TracePlan& plan, const RankGroup& group,
                              CachedClassifier& classifier, BinnedTimes& bins) {
  RankStream stream(plan, group);
  if (auto err = stream.open(); !err.empty()) return err;
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  while (stream.next(event, file)) {
    if (event->kind != TraceEventKind::kComplete) continue;
    const bool main_thread = event->os_pid == group.main_pid && event->tid == event->os_pid;
    bins.add(event->pid, event->tid, event->ts_ns, event->dur_ns,
             classifier.classify(event->cat, event->name, main_thread));
  }
  return stream.error();
}

std::string finish_dftracer(const TracePlan& plan, const DfAnalysisOptions& options,
                            std::vector<DfRankResult>& ranks, const RebinRanks& rebin,
                            DfJobSummary& out) {
  out = DfJobSummary{};
  out.start_ns = std::numeric_limits<std::int64_t>::max();
  out.end_ns = std::numeric_limits<std::int64_t>::min();
  std::optional<BinnedTimes> binned;
  bool binned_ok = true;
  for (DfRankResult& result : ranks) {
    DfRankSummary& rank = result.summary;
    out.passes = std::max(out.passes, result.passes);
    out.events += rank.events;
    for (std::size_t c = 0; c < out.ops.size(); ++c)
      out.ops[c] += rank.ops[c];
    out.exact += rank.exact;
    if (rank.events > 0) {
      out.start_ns = std::min(out.start_ns, rank.start_ns);
      out.end_ns = std::max(out.end_ns, rank.end_ns);
    }
    if (result.binned) {
      binned_ok = binned_ok && result.binned_ok;
      if (binned) {
        binned->merge(*result.binned);
      } else {
        binned = std::move(result.binned);
      }
    }
    out.ranks.push_back(std::move(rank));
  }
  if (out.start_ns > out.end_ns) out.start_ns = out.end_ns = 0;

  if (options.granularity_ns > 0) {
    const std::int64_t origin_guess = dftracer_bin_origin_guess(plan);
    if (!binned || !binned_ok || origin_guess != out.start_ns) {
      // The origin guessed from the files' first records is not the job's
      // first start: bin again from the true one.
      binned.emplace(out.start_ns, options.granularity_ns);
      if (auto err = rebin(out.start_ns, *binned); !err.empty()) return err;
      out.passes = std::max(out.passes, 2);
    }
    out.binned = binned->finish();
  }
  return {};
}

std::string summarize_dftracer(const TracePlan& plan, CachedClassifier& classifier,
                               const DfAnalysisOptions& options, TraceSink* sink, DfJobSummary& out,
                               std::vector<ReadStats>& stats) {
  const std::int64_t origin = dftracer_bin_origin_guess(plan);
  std::vector<DfRankResult> ranks;
  for (const RankGroup& group : plan.ranks) {
    if (group.format != TraceFormat::kDftracer) continue;
    if (auto err = summarize_dftracer_rank(plan, group, classifier, options, origin, sink,
                                           ranks.emplace_back(), stats);
        !err.empty()) {
      return err;
    }
  }
  const RebinRanks rebin = [&](std::int64_t, BinnedTimes& bins) -> std::string {
    for (const RankGroup& group : plan.ranks) {
      if (group.format != TraceFormat::kDftracer) continue;
      if (auto err = bin_dftracer_rank(plan, group, classifier, bins); !err.empty()) return err;
    }
    return {};
  };
  return finish_dftracer(plan, options, ranks, rebin, out);
}

}  // namespace stallwatch::collector
