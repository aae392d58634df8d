// SPDX-License-Identifier: MIT
#include <nlohmann/json.hpp>

#include "analyze_report.h"
#include "analyze_top_files.h"
#include "engine/metric_fields.h"

namespace stallwatch::collector {

namespace {

using nlohmann::json;

double secs(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}
double micros(std::int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

json class_counts(const ClassCounts& counts) {
  json out = json::object();
  for (int c = 0; c < kEventClassCount; ++c) {
    out[std::string(to_string(static_cast<EventClass>(c)))] = counts[static_cast<std::size_t>(c)];
  }
  return out;
}

json totals(const IntervalTotals& t) {
  return {{"compute_seconds", secs(t.compute)},
          {"app_io_seconds", secs(t.app_io)},
          {"io_seconds", secs(t.io)},
          {"fetch_seconds", secs(t.fetch)},
          {"device_busy_seconds", secs(t.device_busy)},
          {"comm_seconds", secs(t.comm)},
          {"unoverlapped_app_io_seconds", secs(t.unoverlapped_app_io)},
          {"unoverlapped_io_seconds", secs(t.unoverlapped_io)},
          {"unoverlapped_compute_seconds", secs(t.unoverlapped_compute)},
          {"unoverlapped_app_compute_seconds", secs(t.unoverlapped_app_compute)},
          {"compute_only_seconds", secs(t.compute_only)},
          {"fetch_not_device_seconds", secs(t.fetch_not_device)}};
}

json dftracer(const DfJobSummary& s) {
  json out = totals(s.exact);
  out["job_time_seconds"] = secs(s.end_ns - s.start_ns);
  out["start_ns"] = s.start_ns;
  out["end_ns"] = s.end_ns;
  out["events"] = s.events;
  out["ops"] = class_counts(s.ops);
  out["passes"] = s.passes;
  json ranks = json::array();
  for (const DfRankSummary& r : s.ranks) {
    json rank = totals(r.exact);
    rank["rank"] = r.rank;
    rank["host"] = r.host;
    rank["main_pid"] = r.main_pid;
    rank["wall_seconds"] = secs(r.end_ns - r.start_ns);
    rank["events"] = r.events;
    rank["ops"] = class_counts(r.ops);
    rank["late_intervals"] = r.late_intervals;
    ranks.push_back(std::move(rank));
  }
  out["ranks"] = std::move(ranks);
  if (s.binned) {
    const BinnedTotals& b = *s.binned;
    out["binned"] = {{"granularity_seconds", secs(b.granularity_ns)},
                     {"bins", b.bins},
                     {"total_seconds", secs(s.end_ns - s.start_ns)},
                     {"compute_seconds", secs(b.compute)},
                     {"io_seconds", secs(b.io)},
                     {"app_io_seconds", secs(b.app_io)},
                     {"unoverlapped_io_seconds", secs(b.unoverlapped_io)},
                     {"unoverlapped_compute_seconds", secs(b.unoverlapped_compute)},
                     {"unoverlapped_app_io_seconds", secs(b.unoverlapped_app_io)},
                     {"unoverlapped_app_compute_seconds", secs(b.unoverlapped_app_compute)}};
  }
  return out;
}

json described(const Describe& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"std", d.std}, {"min", d.min},
          {"25%", d.p25},     {"50%", d.p50},   {"75%", d.p75}, {"max", d.max}};
}

json kernel_breakdown(const HtaKernelBreakdown& k) {
  json types = json::array();
  for (const HtaKernelTypeTime& t : k.types) {
    types.push_back(
        {{"kernel_type", t.kernel_type}, {"sum_us", t.sum_us}, {"percentage", t.percentage}});
  }
  json kernels = json::array();
  for (const HtaKernelStat& s : k.kernels) {
    kernels.push_back({{"name", s.name},
                       {"sum_us", s.sum_us},
                       {"max_us", s.max_us},
                       {"min_us", s.min_us},
                       {"stddev", s.stddev},
                       {"mean_us", s.mean_us},
                       {"kernel_type", s.kernel_type},
                       {"rank", s.rank}});
  }
  return {{"kernel_types", std::move(types)}, {"kernels", std::move(kernels)}};
}

json launch_stats(const std::vector<HtaLaunchStats>& stats) {
  json out = json::array();
  for (const HtaLaunchStats& s : stats) {
    out.push_back({{"rank", s.rank},
                   {"launches", s.launches.size()},
                   {"cpu_duration_us", described(s.cpu_duration)},
                   {"gpu_duration_us", described(s.gpu_duration)},
                   {"launch_delay_us", described(s.launch_delay)},
                   {"runtime_cutoff_us", HtaLaunchStats::kRuntimeCutoffUs},
                   {"launch_delay_cutoff_us", HtaLaunchStats::kLaunchDelayCutoffUs},
                   {"short_kernels", s.short_kernels},
                   {"long_launches", s.long_launches},
                   {"late_starts", s.late_starts}});
  }
  return out;
}

json queue_lengths(const std::vector<HtaQueueLength>& queues) {
  json out = json::array();
  for (const HtaQueueLength& q : queues) {
    out.push_back({{"rank", q.rank},
                   {"stream", q.stream},
                   {"queue_length", described(q.queue_length)},
                   {"max_queue_length", HtaQueueLength::kMaxQueueLength},
                   {"blocked_on_full_queue_us", q.blocked_us}});
  }
  return out;
}

json overhead(const HtaOverhead& o) {
  return {{"count", o.count}, {"mean_us", o.mean_us}, {"p50_us", o.p50_us}, {"p95_us", o.p95_us}};
}

// The ET's own JSON text of each value (shapes, types), parsed back.
json parsed_all(const std::vector<std::string>& texts) {
  json out = json::array();
  for (const std::string& t : texts)
    out.push_back(json::parse(t, nullptr, false));
  return out;
}

json et_join(const EtJoin& j) {
  return {{"file", j.file},
          {"rank", j.rank},
          {"collected_together", j.overlap},
          {"et_nodes", j.et_nodes},
          {"et_rf_id_range", {j.et_min_rf_id, j.et_max_rf_id}},
          {"kineto_external_id_range", {j.kineto_min_id, j.kineto_max_id}},
          {"operator_calls_with_id", j.kineto_operators},
          {"operator_calls_joined", j.joined}};
}

json operators(const HtaOperatorAttribution& a) {
  json ops = json::array();
  for (const HtaOperatorStats& s : a.operators) {
    ops.push_back({{"rank", s.rank},
                   {"name", s.name},
                   {"calls", s.calls},
                   {"host_runtime_us", s.host_runtime_us},
                   {"device_runtime_us", s.device_runtime_us},
                   {"t1_gap_before", overhead(s.t1)},
                   {"t2_to_first_launch", overhead(s.t2)},
                   {"t3_after_last_launch", overhead(s.t3)},
                   {"t5_between_launches", overhead(s.t5)},
                   {"device_start_delay", overhead(s.device_start_delay)},
                   {"et_nodes", s.et_nodes},
                   {"input_shapes", parsed_all(s.input_shapes)},
                   {"input_types", parsed_all(s.input_types)}});
  }
  json launches = json::array();
  for (const HtaLaunchOverhead& l : a.launches)
    launches.push_back({{"rank", l.rank}, {"name", l.name}, {"t4_launch", overhead(l.t4)}});
  return {{"operators", std::move(ops)}, {"launch_calls", std::move(launches)}};
}

json optional_number(std::optional<double> v) {
  return v ? json(*v) : json(nullptr);
}

json steps(const std::vector<HtaRankSteps>& ranks, std::int64_t batch_size) {
  json out = json::array();
  for (const HtaRankSteps& s : ranks) {
    out.push_back({{"rank", s.rank},
                   {"steps", s.steps},
                   {"total_us", s.total_us},
                   {"mean_us", s.mean_us},
                   {"p50_us", s.p50_us},
                   {"max_us", s.max_us},
                   {"qps", optional_number(hta_rank_qps(s, batch_size))}});
  }
  return {{"batch_size", batch_size > 0 ? json(batch_size) : json(nullptr)},
          {"job_qps", optional_number(hta_job_qps(ranks, batch_size))},
          {"ranks", std::move(out)}};
}

json hta(const HtaBreakdown& h, std::int64_t batch_size) {
  json ranks = json::array();
  for (const HtaRankBreakdown& r : h.ranks) {
    json rank = {{"rank", r.rank}, {"file", r.file}, {"gpu_events", r.gpu_events}};
    if (r.gpu_events > 0) {
      rank["idle_time_us"] = micros(r.idle_ns);
      rank["compute_time_us"] = micros(r.compute_ns);
      rank["non_compute_time_us"] = micros(r.non_compute_ns);
      rank["kernel_time_us"] = micros(r.span_ns);
      rank["idle_time_pctg"] = r.idle_pct;
      rank["compute_time_pctg"] = r.compute_pct;
      rank["non_compute_time_pctg"] = r.non_compute_pct;
      rank["comp_comm_overlap_pctg"] = r.has_comm ? json(r.comm_comp_overlap_pct) : json(nullptr);
    }
    json streams = json::array();
    for (const HtaStreamIdle& s : r.streams) {
      streams.push_back({{"stream", s.stream},
                         {"host_wait_us", micros(s.host_wait_ns)},
                         {"kernel_wait_us", micros(s.kernel_wait_ns)},
                         {"other_us", micros(s.other_ns)}});
    }
    rank["idle_by_stream"] = std::move(streams);
    ranks.push_back(std::move(rank));
  }
  return {{"profiler_steps", h.profiler_steps},
          {"dropped_last_step", h.dropped_last_step},
          {"ranks", std::move(ranks)},
          {"kernel_breakdown", kernel_breakdown(h.kernels)},
          {"cuda_kernel_launch_stats", launch_stats(h.launch_stats)},
          {"queue_length", queue_lengths(h.queue_lengths)},
          {"operator_attribution", operators(h.operators)},
          {"steps", steps(h.steps, batch_size)}};
}

// A data stall's cause, null for none (as the daemon's API writes it).
json cause(Cause c) {
  return c == Cause::kNone ? json(nullptr) : json(std::string(to_string(c)));
}

json window(const WindowMetrics& w) {
  json out = {{"window_seconds", secs(w.window_ns)},
              {"start_ns", w.start_ns},
              {"end_ns", w.end_ns},
              {"verdict", std::string(to_string(w.verdict))},
              {"io_captured", w.io_captured},
              {"launches_captured", w.launches_captured},
              {"cause", cause(w.cause)}};
  for (const MetricField& f : metric_fields()) {
    if (f.is_count()) {
      out[std::string(f.name())] = w.*f.count;
    } else {
      out[std::string(f.name())] = w.*f.value;
    }
  }
  return out;
}

json engine(const Snapshot& snap) {
  json jobs = json::array();
  for (const JobSnapshot& job : snap.jobs) {
    json ranks = json::array();
    for (const RankSnapshot& rank : job.ranks) {
      json windows = json::array();
      for (const WindowMetrics& w : rank.windows)
        windows.push_back(window(w));
      ranks.push_back({{"rank", rank.rank},
                       {"device_source", std::string(to_string(rank.device_source))},
                       {"verdict", std::string(to_string(rank.verdict))},
                       {"cause", cause(rank.cause)},
                       {"start_ns", rank.start_ns},
                       {"end_ns", rank.end_ns},
                       {"events_received", rank.counters.events_received},
                       {"late_events", rank.counters.late_events},
                       {"windows", std::move(windows)},
                       {"top_files", top_files_json(rank)}});
    }
    jobs.push_back({{"job", job.job},
                    {"verdict", std::string(to_string(job.verdict))},
                    {"cause", cause(job.cause)},
                    {"ranks", std::move(ranks)}});
  }
  return {{"jobs", std::move(jobs)}};
}

}  // namespace

void write_report_json(const AnalyzeReport& report, std::ostream& out) {
  json doc;
  doc["files"] = report.files;
  doc["classes"] = report.mapping;
  json reads = json::array();
  for (const ReadStats& s : report.reads) {
    json problems = json::array();
    for (const ReadProblem& p : s.problems) {
      problems.push_back({{"line", p.line}, {"offset", p.offset}, {"message", p.message}});
    }
    reads.push_back({{"file", s.file},
                     {"bytes", s.bytes},
                     {"records", s.records},
                     {"events", s.events},
                     {"metadata", s.metadata},
                     {"aggregated", s.aggregated},
                     {"malformed", s.malformed},
                     {"problems", std::move(problems)}});
  }
  doc["reads"] = std::move(reads);
  if (report.dftracer) doc["dfanalyzer"] = dftracer(*report.dftracer);
  if (report.hta) {
    doc["hta"] = hta(*report.hta, report.batch_size);
    json joins = json::array();
    for (const EtJoin& et : report.et)
      joins.push_back(et_join(et));
    // The first join stays under its old key for readers of one --et.
    doc["hta"]["execution_trace"] = report.et.empty() ? json(nullptr) : joins.front();
    doc["hta"]["execution_traces"] = std::move(joins);
  }
  if (report.engine) doc["stallwatch"] = engine(*report.engine);
  out << doc.dump(2) << "\n";
}

}  // namespace stallwatch::collector
