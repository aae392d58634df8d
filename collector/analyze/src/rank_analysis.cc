// SPDX-License-Identifier: MIT
#include "rank_analysis.h"

namespace stallwatch::collector {

namespace {

void read_kineto_rank(const TracePlan& plan, const RankGroup& group, CachedClassifier& classifier,
                      TraceSink* sink, RankAnalysis& out) {
  RankStream stream(plan, group);
  if (auto err = stream.open(); !err.empty()) {
    out.error = err;
    return;
  }
  HtaTraceCollector& hta =
      out.hta.emplace(group.rank, plan.sources[group.sources.front()].info.path);
  if (sink != nullptr) sink->begin_rank(group);
  const TraceEvent* event = nullptr;
  const TraceFileInfo* file = nullptr;
  while (stream.next(event, file)) {
    hta.add(*event);
    if (sink != nullptr) {
      const bool main_thread = event->os_pid == group.main_pid && event->tid == event->os_pid;
      sink->event(group, *file, *event, classifier.classify(event->cat, event->name, main_thread));
    }
  }
  if (!stream.error().empty()) {
    out.error = stream.error();
    return;
  }
  if (sink != nullptr) sink->end_rank(group);
  hta.finish(stream.fractional_ts());
  out.stats = stream.stats();
}

}  // namespace

RankAnalysis analyze_rank(const TracePlan& plan, const RankGroup& group,
                          CachedClassifier& classifier, const DfAnalysisOptions& options,
                          std::int64_t bin_origin_ns, TraceSink* sink) {
  RankAnalysis out;
  if (group.format == TraceFormat::kKineto) {
    read_kineto_rank(plan, group, classifier, sink, out);
  } else {
    out.error = summarize_dftracer_rank(plan, group, classifier, options, bin_origin_ns, sink,
                                        out.dftracer.emplace(), out.stats);
  }
  return out;
}

}  // namespace stallwatch::collector
