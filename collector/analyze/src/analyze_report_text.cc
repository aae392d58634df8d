// SPDX-License-Identifier: MIT
#include <cmath>

#include "analyze_report.h"
#include "analyze_top_files.h"
#include "report_rows.h"
#include "traces/text_table.h"

namespace stallwatch::collector {

namespace {

// "data-starved (storage)": the verdict and the cause of a data stall.
std::string verdict_text(const WindowMetrics& w) {
  std::string out(to_string(w.verdict));
  if (w.cause != Cause::kNone) out += " (" + std::string(to_string(w.cause)) + ")";
  return out;
}

std::uint64_t ops(const ClassCounts& counts, EventClass c) {
  return counts[static_cast<std::size_t>(c)];
}

std::string window_label(std::int64_t window_ns) {
  if (window_ns == 0) return "total";
  if (window_ns % 1'000'000'000 == 0) return std::to_string(window_ns / 1'000'000'000) + "s";
  return fixed(static_cast<double>(window_ns) / 1e9, 3) + "s";
}

std::string pct(double ratio) {
  return std::isnan(ratio) ? "-" : fixed(100.0 * ratio, 1);
}

void write_dftracer(const DfJobSummary& s, std::ostream& out) {
  out << "\nDFAnalyzer summary: dftracer, " << s.ranks.size()
      << " rank(s); seconds; exact interval unions per rank, summed over ranks\n";
  const bool binned = s.binned.has_value();
  std::vector<std::string> header{"metric", "exact"};
  if (binned) {
    const double g = static_cast<double>(s.binned->granularity_ns) / 1e9;
    header.push_back("per-bin " + fixed(g, g == std::floor(g) ? 0 : 3) + "s (DFAnalyzer approx.)");
  }
  TextTable table(header);
  auto add = [&](std::string name, std::int64_t exact, std::optional<std::int64_t> approx) {
    std::vector<std::string> row{std::move(name), seconds_from_ns(exact)};
    if (binned) row.push_back(approx ? seconds_from_ns(*approx) : "-");
    table.row(std::move(row));
  };
  const IntervalTotals& e = s.exact;
  const auto b = [&](std::int64_t BinnedTotals::*field) -> std::optional<std::int64_t> {
    if (!binned) return std::nullopt;
    return (*s.binned).*field;
  };
  add("job time", s.end_ns - s.start_ns,
      binned ? std::optional(s.end_ns - s.start_ns) : std::nullopt);
  add("compute", e.compute, b(&BinnedTotals::compute));
  add("app I/O", e.app_io, b(&BinnedTotals::app_io));
  add("I/O", e.io, b(&BinnedTotals::io));
  add("unoverlapped app I/O", e.unoverlapped_app_io, b(&BinnedTotals::unoverlapped_app_io));
  add("unoverlapped I/O", e.unoverlapped_io, b(&BinnedTotals::unoverlapped_io));
  add("unoverlapped compute", e.unoverlapped_compute, b(&BinnedTotals::unoverlapped_compute));
  add("unoverlapped app compute", e.unoverlapped_app_compute,
      b(&BinnedTotals::unoverlapped_app_compute));
  add("fetch", e.fetch, std::nullopt);
  table.print(out);
  out << "  ops: compute " << ops(s.ops, EventClass::kCompute) << ", fetch "
      << ops(s.ops, EventClass::kFetch) << ", app I/O " << ops(s.ops, EventClass::kAppIo)
      << ", I/O " << ops(s.ops, EventClass::kIo) << ", device "
      << ops(s.ops, EventClass::kDeviceBusy) << ", comm " << ops(s.ops, EventClass::kComm) << "; "
      << s.events << " events";
  if (s.passes > 1) out << "; " << s.passes << " passes";
  out << "\n";

  TextTable ranks({"rank", "host", "wall", "compute", "app I/O", "I/O", "fetch", "unovl app I/O",
                   "unovl I/O", "compute ops", "fetch ops"});
  for (const DfRankSummary& r : s.ranks) {
    ranks.row({std::to_string(r.rank), r.host.empty() ? "-" : r.host,
               seconds_from_ns(r.end_ns - r.start_ns), seconds_from_ns(r.exact.compute),
               seconds_from_ns(r.exact.app_io), seconds_from_ns(r.exact.io),
               seconds_from_ns(r.exact.fetch), seconds_from_ns(r.exact.unoverlapped_app_io),
               seconds_from_ns(r.exact.unoverlapped_io),
               std::to_string(ops(r.ops, EventClass::kCompute)),
               std::to_string(ops(r.ops, EventClass::kFetch))});
  }
  out << "\n  per rank (seconds):\n";
  ranks.print(out, "  ");
}

void print_rows(const ReportRows& rows, std::ostream& out) {
  TextTable table(rows.header);
  for (const std::vector<std::string>& row : rows.rows)
    table.row(row);
  table.print(out, "  ");
}

void write_hta(const HtaBreakdown& h, std::int64_t batch_size, std::ostream& out) {
  out << "\nHTA temporal breakdown: Kineto, " << h.ranks.size() << " rank(s); µs";
  if (h.dropped_last_step) out << "; last of " << h.profiler_steps << " profiler steps dropped";
  out << "\n";
  print_rows(hta_temporal_rows(h), out);
  out << "\n  steps (ProfilerStep#N, µs";
  if (batch_size > 0) {
    out << "; QPS = " << batch_size << " samples per rank and step / mean step time";
  } else {
    out << "; QPS needs --batch-size";
  }
  out << "):\n";
  print_rows(hta_steps_rows(h, batch_size), out);
  out << "\n  idle time by stream (µs; kernel wait = gap under 30 µs):\n";
  print_rows(hta_idle_rows(h), out);
  out << "\n  kernel types (µs, all ranks):\n";
  print_rows(hta_kernel_type_rows(h), out);
  out << "\n  CUDA kernel launches (µs; short: kernel shorter than its launch call):\n";
  print_rows(hta_launch_rows(h), out);
  out << "\n  queue length by stream:\n";
  print_rows(hta_queue_rows(h), out);

  out << "\n  top-level operators (µs; T1 gap before, T2 to first launch, T3 after last "
         "launch, T5 between launches, start: to the first device activity; means):\n";
  TextTable ops({"rank", "operator", "calls", "host", "device", "T1", "T2", "T3", "T5", "start"});
  constexpr std::size_t kShown = 10;
  std::size_t shown = 0;
  std::int64_t last_rank = -1;
  for (const HtaOperatorStats& s : h.operators.operators) {
    if (s.rank != last_rank) shown = 0;
    last_rank = s.rank;
    if (shown++ >= kShown) continue;
    ops.row({std::to_string(s.rank), s.name.substr(0, 40), std::to_string(s.calls),
             std::to_string(s.host_runtime_us), std::to_string(s.device_runtime_us),
             fixed(s.t1.mean_us, 1), fixed(s.t2.mean_us, 1), fixed(s.t3.mean_us, 1),
             fixed(s.t5.mean_us, 1), fixed(s.device_start_delay.mean_us, 1)});
  }
  ops.print(out, "  ");
  out << "\n  launch calls (T4, µs):\n";
  print_rows(hta_launch_call_rows(h), out);
}

void write_et(const EtJoin& et, const HtaBreakdown& h, std::ostream& out) {
  out << "\n  Execution Trace " << et.file << " (" << et.et_nodes << " nodes) on rank " << et.rank
      << ": ";
  if (!et.overlap) {
    out << "not collected together with the Kineto trace (ET record-function ids "
        << et.et_min_rf_id << ".." << et.et_max_rf_id << ", Kineto External ids "
        << et.kineto_min_id << ".." << et.kineto_max_id << "); nothing joined\n";
    return;
  }
  out << et.joined << " of " << et.kineto_operators
      << " top-level operator calls joined by record-function id:\n";
  TextTable table({"operator", "calls", "ET nodes", "input shapes"});
  for (const HtaOperatorStats& s : h.operators.operators) {
    if (s.rank != et.rank || s.et_nodes.empty()) continue;
    std::string nodes;
    for (std::size_t i = 0; i < s.et_nodes.size() && i < 4; ++i)
      nodes += (i ? "," : "") + std::to_string(s.et_nodes[i]);
    if (s.et_nodes.size() > 4) nodes += ",...";
    std::string shapes;
    for (const std::string& shape : s.input_shapes)
      shapes += (shapes.empty() ? "" : " | ") + shape;
    table.row({s.name.substr(0, 40), std::to_string(s.calls), nodes, shapes});
  }
  table.print(out, "  ");
}

void write_engine(const Snapshot& snap, std::ostream& out) {
  out << "\nstallwatch view: the live engine over the recorded run (whole run, then the last "
         "window of each size)\n";
  TextTable table({"job/rank", "window", "wall s", "device busy s", "data stall s", "data stall %",
                   "device idle %", "overlap %", "steps", "verdict", "device signal"});
  bool proxy = false;
  for (const JobSnapshot& job : snap.jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      proxy |= rank.device_source == DeviceSignal::kComputeProxy;
      // Totals first, then the sliding windows shorter than the run.
      std::vector<const WindowMetrics*> order;
      double total_wall = 0;
      for (const auto& w : rank.windows) {
        if (w.window_ns == 0) {
          order.insert(order.begin(), &w);
          total_wall = w.wall_seconds;
        }
      }
      for (const auto& w : rank.windows) {
        if (w.window_ns != 0 && w.wall_seconds > 0 && w.wall_seconds < total_wall)
          order.push_back(&w);
      }
      for (const WindowMetrics* w : order) {
        table.row({job.job + "/" + std::to_string(rank.rank), window_label(w->window_ns),
                   fixed(w->wall_seconds, 3), fixed(w->device_busy_seconds, 3),
                   fixed(w->data_stall_seconds, 3), pct(w->data_stall_ratio),
                   pct(w->device_idle_ratio), pct(w->overlap_ratio), std::to_string(w->steps),
                   verdict_text(*w), std::string(to_string(rank.device_source))});
      }
    }
  }
  table.print(out);
  if (proxy) {
    out << "device signal compute-proxy: the rank's trace has no device-busy events (GPU kernels, "
           "copies, memsets), so its compute stands in for device busy and the data stall is "
           "measured against compute\n";
  }
}

}  // namespace

void write_report_text(const AnalyzeReport& report, std::ostream& out) {
  std::uint64_t events = 0, malformed = 0, bytes = 0;
  for (const ReadStats& s : report.reads) {
    events += s.events;
    malformed += s.malformed;
    bytes += s.bytes;
  }
  out << "stallwatch analyze: " << report.files.size() << " file(s), "
      << fixed(static_cast<double>(bytes) / 1e6, 1) << " MB, " << events << " events, " << malformed
      << " malformed; classes: " << report.mapping << "\n";
  if (report.dftracer) write_dftracer(*report.dftracer, out);
  if (report.hta) write_hta(*report.hta, report.batch_size, out);
  if (report.hta) {
    for (const EtJoin& et : report.et)
      write_et(et, *report.hta, out);
  }
  if (report.engine) {
    write_engine(*report.engine, out);
    write_top_files_text(*report.engine, out);
  }
}

}  // namespace stallwatch::collector
