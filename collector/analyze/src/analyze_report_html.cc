// SPDX-License-Identifier: MIT
#include <cmath>

#include "analyze_report.h"
#include "analyze_top_files.h"
#include "html_writer.h"
#include "report_charts.h"
#include "report_rows.h"
#include "traces/text_table.h"

// The HTML report: the text report's sections as tables, in one file that
// needs nothing else (inline style, charts drawn by the dashboard's chart
// library inlined into the page, one inline script that sorts the operator,
// kernel and top-files tables; no fetch, no external resource).

namespace stallwatch::collector {

namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:6px 0 14px}
th,td{border:1px solid #ccc;padding:3px 8px;max-width:48em;overflow-wrap:anywhere}th{background:#f2f2f2}
td.n{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}
div.chart{margin:8px 0 18px}
p.note{color:#555;max-width:70em}
)css";

// Sorts a .sortable table by the clicked column: numerically when both cells
// read as numbers, else as text; a second click reverses.
constexpr const char* kSortScript = R"js(
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.dir !== 'desc';
      th.dataset.dir = down ? 'desc' : 'asc';
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
        return down ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
)js";

HtmlTable html_table(const ReportRows& rows, std::string id) {
  HtmlTable table(rows.header, std::move(id));
  for (const std::vector<std::string>& row : rows.rows)
    table.row(row);
  return table;
}

std::string pct(double ratio) {
  return std::isnan(ratio) ? "-" : fixed(100.0 * ratio, 1);
}

void write_dftracer(const DfJobSummary& s, std::ostream& out) {
  out << "<section id=\"dfanalyzer\"><h2>DFAnalyzer summary</h2>\n<p class=\"note\">dftracer, "
      << s.ranks.size()
      << " rank(s); seconds; exact interval unions per rank, summed over ranks</p>\n";
  HtmlTable totals({"metric", "exact"}, "dfanalyzer-totals");
  const IntervalTotals& e = s.exact;
  totals.row({"job time", seconds_from_ns(s.end_ns - s.start_ns)});
  totals.row({"compute", seconds_from_ns(e.compute)});
  totals.row({"app I/O", seconds_from_ns(e.app_io)});
  totals.row({"I/O", seconds_from_ns(e.io)});
  totals.row({"unoverlapped app I/O", seconds_from_ns(e.unoverlapped_app_io)});
  totals.row({"unoverlapped I/O", seconds_from_ns(e.unoverlapped_io)});
  totals.row({"unoverlapped compute", seconds_from_ns(e.unoverlapped_compute)});
  totals.row({"unoverlapped app compute", seconds_from_ns(e.unoverlapped_app_compute)});
  totals.row({"fetch", seconds_from_ns(e.fetch)});
  totals.write(out);
  HtmlTable ranks(
      {"rank", "host", "wall", "compute", "app I/O", "I/O", "fetch", "unovl app I/O", "unovl I/O"},
      "dfanalyzer-ranks");
  for (const DfRankSummary& r : s.ranks) {
    ranks.row({std::to_string(r.rank), r.host.empty() ? "-" : r.host,
               seconds_from_ns(r.end_ns - r.start_ns), seconds_from_ns(r.exact.compute),
               seconds_from_ns(r.exact.app_io), seconds_from_ns(r.exact.io),
               seconds_from_ns(r.exact.fetch), seconds_from_ns(r.exact.unoverlapped_app_io),
               seconds_from_ns(r.exact.unoverlapped_io)});
  }
  out << "<h3>Per rank (seconds)</h3>\n";
  ranks.write(out);
  out << "</section>\n";
}

void write_temporal(const HtaBreakdown& h, std::vector<HtmlChart>& charts, std::ostream& out) {
  out << "<section id=\"hta-temporal\"><h2>HTA temporal breakdown</h2>\n<p class=\"note\">Kineto, "
      << h.ranks.size() << " rank(s); µs";
  if (h.dropped_last_step) out << "; last of " << h.profiler_steps << " profiler steps dropped";
  out << "</p>\n";
  html_table(hta_temporal_rows(h), "hta-temporal-table").write(out);
  std::vector<HtmlBar> bars;
  for (const HtaRankBreakdown& r : h.ranks) {
    if (r.gpu_events == 0) continue;
    bars.push_back(
        {"rank " + std::to_string(r.rank), {r.compute_pct, r.non_compute_pct, r.idle_pct}});
  }
  write_chart_placeholder(
      out,
      charts.emplace_back(HtmlChart{
          "hta-temporal-chart", "%", {"compute", "non-compute", "idle"}, std::move(bars), 100}));
  out << "</section>\n";
}

void write_steps(const HtaBreakdown& h, std::int64_t batch_size, std::ostream& out) {
  out << "<section id=\"hta-steps\"><h2>Steps and throughput</h2>\n<p "
         "class=\"note\">ProfilerStep#N, µs; ";
  if (batch_size > 0) {
    out << "QPS = " << batch_size << " samples per rank and step / mean step time";
  } else {
    out << "QPS needs --batch-size";
  }
  out << "</p>\n";
  html_table(hta_steps_rows(h, batch_size), "hta-steps-table").write(out);
  out << "</section>\n";
}

void write_idle(const HtaBreakdown& h, std::vector<HtmlChart>& charts, std::ostream& out) {
  out << "<section id=\"hta-idle\"><h2>Idle time by stream</h2>\n<p class=\"note\">µs; kernel "
         "wait = gap under 30 µs</p>\n";
  html_table(hta_idle_rows(h), "hta-idle-table").write(out);
  std::vector<HtmlBar> bars;
  for (const HtaRankBreakdown& r : h.ranks) {
    for (const HtaStreamIdle& s : r.streams) {
      bars.push_back(
          {"rank " + std::to_string(r.rank) + " stream " + std::to_string(s.stream),
           {static_cast<double>(s.host_wait_ns) / 1e3, static_cast<double>(s.kernel_wait_ns) / 1e3,
            static_cast<double>(s.other_ns) / 1e3}});
    }
  }
  write_chart_placeholder(
      out, charts.emplace_back(HtmlChart{
               "hta-idle-chart", "µs", {"host wait", "kernel wait", "other"}, std::move(bars), 0}));
  out << "</section>\n";
}

void write_kernels(const HtaBreakdown& h, std::vector<HtmlChart>& charts, std::ostream& out) {
  out << "<section id=\"hta-kernels\"><h2>Kernel types</h2>\n<p class=\"note\">µs, all ranks</p>\n";
  html_table(hta_kernel_type_rows(h), "hta-kernel-types").write(out);
  HtmlChart chart{"hta-kernel-chart", "µs", {"time"}, {}, 0};
  for (const HtaKernelTypeTime& t : h.kernels.types)
    chart.bars.push_back({t.kernel_type, {static_cast<double>(t.sum_us)}});
  write_chart_placeholder(out, charts.emplace_back(std::move(chart)));
  HtmlTable kernels({"rank", "kernel type", "kernel", "sum", "mean", "min", "max"},
                    "hta-top-kernels");
  for (const HtaKernelStat& s : h.kernels.kernels) {
    kernels.row({std::to_string(s.rank), s.kernel_type, s.name, fixed(s.sum_us, 0),
                 fixed(s.mean_us, 1), fixed(s.min_us, 0), fixed(s.max_us, 0)});
  }
  out << "<h3>Top kernels per type</h3>\n";
  kernels.write(out, true);
  out << "</section>\n";
}

void write_launches(const HtaBreakdown& h, std::ostream& out) {
  out << "<section id=\"hta-launches\"><h2>CUDA kernel launches</h2>\n<p class=\"note\">µs; "
         "short: kernel shorter than its launch call</p>\n";
  html_table(hta_launch_rows(h), "hta-launches-table").write(out);
  out << "</section>\n<section id=\"hta-queues\"><h2>Queue length by stream</h2>\n";
  html_table(hta_queue_rows(h), "hta-queues-table").write(out);
  out << "</section>\n";
}

std::string joined(const std::vector<std::string>& values, std::string_view separator) {
  std::string out;
  for (const std::string& v : values)
    out += (out.empty() ? "" : std::string(separator)) + v;
  return out;
}

void write_operators(const HtaBreakdown& h, const std::vector<EtJoin>& ets,
                     std::vector<HtmlChart>& charts, std::ostream& out) {
  out << "<section id=\"hta-operators\"><h2>Top-level operators</h2>\n<p class=\"note\">µs; T1 "
         "gap before, T2 to first launch, T3 after last launch, T5 between launches, start: to "
         "the first device activity; means. Click a column to sort.</p>\n";
  std::vector<std::string> header{"rank", "operator", "calls", "host", "device",
                                  "T1",   "T2",       "T3",    "T5",   "start"};
  bool with_et = false;
  for (const EtJoin& et : ets)
    with_et |= et.overlap;
  if (with_et) {
    header.push_back("ET nodes");
    header.push_back("input shapes");
  }
  for (const EtJoin& et : ets) {
    out << "<p class=\"note et-join\" data-rank=\"" << et.rank << "\">Execution Trace "
        << html_escape(et.file) << " on rank " << et.rank << ": ";
    if (et.overlap) {
      out << et.joined << " of " << et.kineto_operators
          << " top-level calls joined by record-function id";
    } else {
      out << "not collected together with the Kineto trace; nothing joined";
    }
    out << ".</p>\n";
  }
  HtmlTable ops(header, "hta-operators-table");
  for (const HtaOperatorStats& s : h.operators.operators) {
    std::vector<std::string> row{std::to_string(s.rank),
                                 s.name,
                                 std::to_string(s.calls),
                                 std::to_string(s.host_runtime_us),
                                 std::to_string(s.device_runtime_us),
                                 fixed(s.t1.mean_us, 1),
                                 fixed(s.t2.mean_us, 1),
                                 fixed(s.t3.mean_us, 1),
                                 fixed(s.t5.mean_us, 1),
                                 fixed(s.device_start_delay.mean_us, 1)};
    if (with_et) {
      std::vector<std::string> nodes;
      for (const std::int64_t n : s.et_nodes)
        nodes.push_back(std::to_string(n));
      row.push_back(joined(nodes, ","));
      row.push_back(joined(s.input_shapes, " | "));
    }
    ops.row(std::move(row));
  }
  ops.write(out, true);
  out << "<h3>CPU overheads of the top operators (µs, summed over calls)</h3>\n";
  std::vector<HtmlBar> bars;
  constexpr std::size_t kShown = 10;
  std::size_t shown = 0;
  std::int64_t last_rank = -1;
  auto total = [](const HtaOverhead& o) { return o.mean_us * static_cast<double>(o.count); };
  for (const HtaOperatorStats& s : h.operators.operators) {
    if (s.rank != last_rank) shown = 0;
    last_rank = s.rank;
    if (shown++ >= kShown) continue;
    bars.push_back({"rank " + std::to_string(s.rank) + " " + s.name.substr(0, 18),
                    {total(s.t1), total(s.t2), total(s.t3), total(s.t5)}});
  }
  write_chart_placeholder(
      out, charts.emplace_back(HtmlChart{"hta-overhead-chart",
                                         "µs",
                                         {"T1 gap before", "T2 to first launch",
                                          "T3 after last launch", "T5 between launches"},
                                         std::move(bars),
                                         0}));
  out << "<h3>Launch calls (T4, µs)</h3>\n";
  html_table(hta_launch_call_rows(h), "hta-launch-calls").write(out);
  out << "</section>\n";
}

void write_engine(const Snapshot& snap, std::ostream& out) {
  out << "<section id=\"stallwatch-view\"><h2>stallwatch view</h2>\n<p class=\"note\">The live "
         "engine over the recorded run, whole run (total).</p>\n";
  HtmlTable table({"job/rank", "wall s", "device busy s", "data stall s", "data stall %",
                   "device idle %", "overlap %", "steps", "verdict", "device signal"},
                  "stallwatch-view-table");
  for (const JobSnapshot& job : snap.jobs) {
    for (const RankSnapshot& rank : job.ranks) {
      for (const WindowMetrics& w : rank.windows) {
        if (w.window_ns != 0) continue;
        std::string verdict(to_string(w.verdict));
        if (w.cause != Cause::kNone) verdict += " (" + std::string(to_string(w.cause)) + ")";
        table.row({job.job + "/" + std::to_string(rank.rank), fixed(w.wall_seconds, 3),
                   fixed(w.device_busy_seconds, 3), fixed(w.data_stall_seconds, 3),
                   pct(w.data_stall_ratio), pct(w.device_idle_ratio), pct(w.overlap_ratio),
                   std::to_string(w.steps), verdict, std::string(to_string(rank.device_source))});
      }
    }
  }
  table.write(out);
  out << "</section>\n";
}

// Each rank's whole-run top files, the text report's table; no section when
// no rank has a file (a Kineto-only run).
void write_top_files(const Snapshot& snap, std::ostream& out) {
  const ReportRows rows = top_files_rows(snap);
  if (rows.rows.empty()) return;
  out << "<section id=\"top-files\"><h2>Top files by I/O time</h2>\n<p class=\"note\">Whole "
         "run, per rank: seconds inside POSIX and stdio calls per file, each call whole; bytes "
         "those calls read and wrote; \"other files\": the rank's calls on files not listed. "
         "Click a column to sort.</p>\n";
  html_table(rows, "top-files-table").write(out, true);
  out << "</section>\n";
}

}  // namespace

void write_report_html(const AnalyzeReport& report, std::ostream& out) {
  std::uint64_t events = 0, malformed = 0;
  for (const ReadStats& s : report.reads) {
    events += s.events;
    malformed += s.malformed;
  }
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
         "<title>stallwatch analyze</title><style>"
      << kStyle << "</style>\n";
  write_chart_style(out);
  out << "</head><body>\n<h1>stallwatch analyze</h1>\n<section id=\"inputs\">"
      << "<p>" << report.files.size() << " file(s), " << events << " events, " << malformed
      << " malformed; classes: " << html_escape(report.mapping) << "</p><ul>\n";
  for (const std::string& f : report.files)
    out << "<li>" << html_escape(f) << "</li>\n";
  out << "</ul></section>\n";
  if (report.dftracer) write_dftracer(*report.dftracer, out);
  std::vector<HtmlChart> charts;
  if (report.hta) {
    write_temporal(*report.hta, charts, out);
    write_steps(*report.hta, report.batch_size, out);
    write_idle(*report.hta, charts, out);
    write_kernels(*report.hta, charts, out);
    write_launches(*report.hta, out);
    write_operators(*report.hta, report.et, charts, out);
  }
  if (report.engine) {
    write_engine(*report.engine, out);
    write_top_files(*report.engine, out);
  }
  write_chart_scripts(out, charts);
  out << "<script>" << kSortScript << "</script>\n</body></html>\n";
}

}  // namespace stallwatch::collector
