#include "replay/dfanalyzer_summary.h"

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

std::string summarize_dftracer(const TracePlan& plan, CachedClassifier& classifier,
                               const DfAnalysisOptions& options, TraceSink* sink, DfJobSummary& out,
                               std::vector<ReadStats>& stats) {
  out = DfJobSummary{};
  out.start_ns = std::numeric_limits<std::int64_t>::max();
  out.end_ns = std::numeric_limits<std::int64_t>::min();
  // The binning origin is the job's first start; the files' first records
  // give a guess that is checked once the whole job has been read.
  std::int64_t origin_guess = std::numeric_limits<std::int64_t>::max();
  for (const RankGroup& group : plan.ranks) {
    if (group.format != TraceFormat::kDftracer) continue;
    for (std::size_t index : group.sources) {
      origin_guess = std::min(origin_guess, plan.sources[index].first_ts_ns);
    }
  }
  std::optional<BinnedTimes> binned;
  bool binned_ok = true;
  if (options.granularity_ns > 0) binned.emplace(origin_guess, options.granularity_ns);

  for (const RankGroup& group : plan.ranks) {
    if (group.format != TraceFormat::kDftracer) continue;
    DfRankSummary rank;
    std::vector<LateInterval> late;
    PassExtras first;
    first.sink = sink;
    first.binned = binned ? &*binned : nullptr;
    first.binned_ok = binned_ok;
    first.stats = &stats;
    if (auto err = read_rank(plan, group, classifier, options, {}, late, first, rank);
        !err.empty()) {
      return err;
    }
    binned_ok = first.binned_ok;
    if (!late.empty()) {
      // Some intervals reached into sealed time: read the rank again with them
      // added up front, so every sealed stretch is measured complete.
      std::vector<LateInterval> again;
      PassExtras second;
      const std::vector<LateInterval> early = late;
      if (auto err = read_rank(plan, group, classifier, options, early, again, second, rank);
          !err.empty()) {
        return err;
      }
      rank.late_intervals = late.size();
      out.passes = std::max(out.passes, 2);
    }
    out.events += rank.events;
    for (std::size_t c = 0; c < out.ops.size(); ++c)
      out.ops[c] += rank.ops[c];
    out.exact += rank.exact;
    if (rank.events > 0) {
      out.start_ns = std::min(out.start_ns, rank.start_ns);
      out.end_ns = std::max(out.end_ns, rank.end_ns);
    }
    out.ranks.push_back(std::move(rank));
  }
  if (out.start_ns > out.end_ns) out.start_ns = out.end_ns = 0;

  if (binned) {
    if (!binned_ok || origin_guess != out.start_ns) {
      // The origin guessed from the files' first records is not the job's
      // first start: bin again from the true one.
      binned.emplace(out.start_ns, options.granularity_ns);
      for (const RankGroup& group : plan.ranks) {
        if (group.format != TraceFormat::kDftracer) continue;
        RankStream stream(plan, group);
        if (auto err = stream.open(); !err.empty()) return err;
        const TraceEvent* event = nullptr;
        const TraceFileInfo* file = nullptr;
        while (stream.next(event, file)) {
          if (event->kind != TraceEventKind::kComplete) continue;
          const bool main_thread = event->os_pid == group.main_pid && event->tid == event->os_pid;
          binned->add(event->pid, event->tid, event->ts_ns, event->dur_ns,
                      classifier.classify(event->cat, event->name, main_thread));
        }
        if (!stream.error().empty()) return stream.error();
      }
      out.passes = std::max(out.passes, 2);
    }
    out.binned = binned->finish();
  }
  return {};
}

}  // namespace stallwatch::collector
