// SPDX-License-Identifier: MIT
#include "report_rows.h"

#include "traces/text_table.h"

namespace stallwatch::collector {

namespace {

std::string step_us(const HtaRankSteps& s, double us) {
  return s.steps > 0 ? fixed(us, 1) : "-";
}

}  // namespace

ReportRows hta_temporal_rows(const HtaBreakdown& h) {
  ReportRows t{{"rank", "idle", "compute", "non-compute", "span", "idle %", "compute %",
                "non-compute %", "comm-comp overlap %"},
               {}};
  for (const HtaRankBreakdown& r : h.ranks) {
    if (r.gpu_events == 0) {
      t.rows.push_back({std::to_string(r.rank), "-", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    t.rows.push_back({std::to_string(r.rank), micros_from_ns(r.idle_ns),
                      micros_from_ns(r.compute_ns), micros_from_ns(r.non_compute_ns),
                      micros_from_ns(r.span_ns), fixed(r.idle_pct, 2), fixed(r.compute_pct, 2),
                      fixed(r.non_compute_pct, 2),
                      r.has_comm ? fixed(r.comm_comp_overlap_pct, 2) : "-"});
  }
  return t;
}

ReportRows hta_steps_rows(const HtaBreakdown& h, std::int64_t batch_size) {
  ReportRows t{{"rank", "steps", "mean", "p50", "max", "total", "QPS"}, {}};
  for (const HtaRankSteps& s : h.steps) {
    const auto qps = hta_rank_qps(s, batch_size);
    t.rows.push_back({std::to_string(s.rank), std::to_string(s.steps), step_us(s, s.mean_us),
                      step_us(s, s.p50_us), step_us(s, s.max_us), std::to_string(s.total_us),
                      qps ? fixed(*qps, 1) : "-"});
  }
  if (const auto job = hta_job_qps(h.steps, batch_size))
    t.rows.push_back({"job", "", "", "", "", "", fixed(*job, 1)});
  return t;
}

ReportRows hta_idle_rows(const HtaBreakdown& h) {
  ReportRows t{{"rank", "stream", "host wait", "kernel wait", "other"}, {}};
  for (const HtaRankBreakdown& r : h.ranks) {
    for (const HtaStreamIdle& s : r.streams) {
      t.rows.push_back({std::to_string(r.rank), std::to_string(s.stream),
                        micros_from_ns(s.host_wait_ns), micros_from_ns(s.kernel_wait_ns),
                        micros_from_ns(s.other_ns)});
    }
  }
  return t;
}

ReportRows hta_kernel_type_rows(const HtaBreakdown& h) {
  ReportRows t{{"kernel type", "time", "%"}, {}};
  for (const HtaKernelTypeTime& k : h.kernels.types)
    t.rows.push_back({k.kernel_type, std::to_string(k.sum_us), fixed(k.percentage, 1)});
  return t;
}

ReportRows hta_launch_rows(const HtaBreakdown& h) {
  ReportRows t{{"rank", "launches", "call mean", "call p50", "kernel mean", "delay mean",
                "delay p50", "short", "calls > 50", "delay > 100"},
               {}};
  for (const HtaLaunchStats& s : h.launch_stats) {
    t.rows.push_back({std::to_string(s.rank), std::to_string(s.launches.size()),
                      fixed(s.cpu_duration.mean, 1), fixed(s.cpu_duration.p50, 1),
                      fixed(s.gpu_duration.mean, 1), fixed(s.launch_delay.mean, 1),
                      fixed(s.launch_delay.p50, 1), std::to_string(s.short_kernels),
                      std::to_string(s.long_launches), std::to_string(s.late_starts)});
  }
  return t;
}

ReportRows hta_queue_rows(const HtaBreakdown& h) {
  ReportRows t{{"rank", "stream", "steps", "mean", "p50", "max", "µs at max"}, {}};
  for (const HtaQueueLength& q : h.queue_lengths) {
    t.rows.push_back({std::to_string(q.rank), std::to_string(q.stream),
                      std::to_string(q.queue_length.count), fixed(q.queue_length.mean, 2),
                      fixed(q.queue_length.p50, 1), fixed(q.queue_length.max, 0),
                      std::to_string(q.blocked_us)});
  }
  return t;
}

ReportRows hta_launch_call_rows(const HtaBreakdown& h) {
  ReportRows t{{"rank", "launch", "calls", "mean", "p50", "p95"}, {}};
  for (const HtaLaunchOverhead& l : h.operators.launches) {
    t.rows.push_back({std::to_string(l.rank), l.name, std::to_string(l.t4.count),
                      fixed(l.t4.mean_us, 1), fixed(l.t4.p50_us, 1), fixed(l.t4.p95_us, 1)});
  }
  return t;
}

}  // namespace stallwatch::collector
