// SPDX-License-Identifier: MIT
#include "detail_view.h"

#include <algorithm>
#include <climits>
#include <string_view>

#include "catalog/metric_table.h"
#include "format.h"
#include "gpu_text.h"
#include "table_layout.h"
#include "text_width.h"
#include "timeline_text.h"
#include "top_files_text.h"
#include "top_kernels_text.h"
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

constexpr int kLabelWidth = 18;
constexpr std::size_t kMaxProcessLines = 4;
// Lines kept for the metrics table when the timeline has many threads.
constexpr int kMetricsReserve = 8;
constexpr const char* kDeviceIdleLabel = "device idle";

// A line of the metrics table: a metric of the catalog, formatted by its kind.
struct MetricRow {
  const char* label;
  catalog::Metric metric;
};

constexpr MetricRow kMetricRows[] = {
    {kDeviceIdleLabel, catalog::Metric::kDeviceIdleRatio},
    {"data stall", catalog::Metric::kDataStallRatio},
    {"data stall time", catalog::Metric::kDataStallSeconds},
    {"fetch", catalog::Metric::kFetchSeconds},
    {"compute", catalog::Metric::kComputeSeconds},
    {"device busy", catalog::Metric::kDeviceBusySeconds},
    {"app I/O", catalog::Metric::kAppIoSeconds},
    {"unoverl. app I/O", catalog::Metric::kUnoverlappedAppIoSeconds},
    {"POSIX I/O", catalog::Metric::kIoSeconds},
    {"unoverl. I/O", catalog::Metric::kUnoverlappedIoSeconds},
    {"loader in I/O", catalog::Metric::kLoaderIoRatio},
    {"read bytes/s", catalog::Metric::kReadBytesPerSecond},
    {"write bytes/s", catalog::Metric::kWriteBytesPerSecond},
    {"read calls/s", catalog::Metric::kReadOpsPerSecond},
    {"write calls/s", catalog::Metric::kWriteOpsPerSecond},
    {"overlap", catalog::Metric::kOverlapRatio},
    {"steps", catalog::Metric::kSteps},
    {"step time p50", catalog::Metric::kStepSecondsP50},
    {"step time p95", catalog::Metric::kStepSecondsP95},
    {"steps/s", catalog::Metric::kStepsPerSecond},
    {"samples/s", catalog::Metric::kSamplesPerSecond},
    {"wall", catalog::Metric::kWallSeconds},
};

std::string format_metric(const Metrics& m, catalog::Metric id) {
  switch (catalog::info(id).kind) {
    case catalog::MetricKind::kSeconds:
      return format_seconds(m.get(id));
    case catalog::MetricKind::kRatio:
      return format_percent(m.get(id));
    case catalog::MetricKind::kCount:
      return format_count(m.count(id));
    case catalog::MetricKind::kRate:
      return format_rate(m.get(id));
  }
  return std::string(kDash);
}

const RankRow* selected_rank(const TopState& s, const TopModel& m) {
  if (!s.rank || !m.detail || m.detail->head.job != s.job) return nullptr;
  for (const RankRow& r : m.detail->ranks) {
    if (r.rank == *s.rank) return &r;
  }
  return nullptr;
}

void identity_lines(Canvas& c, const RankRow& r, const std::string& job,
                    const std::string& window) {
  Line& head = c.add_line();
  head.add("rank " + std::to_string(r.rank), Style::kBold);
  head.add(" of " + sanitize(job) + " · ");
  head.add(r.state, state_style(r.state));
  head.add(" · verdict ");
  head.add(r.verdict, verdict_style(r.verdict));
  if (!r.cause.empty() && r.cause != "none") head.add(" · cause " + r.cause, cause_style(r.cause));
  head.add(" · device " + sanitize(r.device_source), source_style(r.device_source));
  if (r.epoch >= 0) head.add(" · epoch " + std::to_string(r.epoch));
  if (r.step >= 0) head.add(" · step " + format_count(static_cast<std::uint64_t>(r.step)));

  if (!r.gpu_counters.empty()) {
    Line& nvml = c.add_line();
    nvml.add("  " + nvml_util_text(r, window), Style::kBold);
    const Metrics* m = r.window(window);
    nvml.add(
        " · device idle " +
        format_percent(m != nullptr ? m->get(catalog::Metric::kDeviceIdleRatio) : std::nullopt) +
        " (exact, " + sanitize(r.device_source) + ")");
    for (const GpuCounters& g : r.gpu_counters)
      c.add_line().add("    " + gpu_device_line(g, window), Style::kDim);
    c.add_line().add("    " + std::string(kNvmlNote), Style::kDim);
  }

  Line& counters = c.add_line();
  counters.add("events " + format_count(r.counters.events_received) + " · batches " +
                   format_count(r.counters.batches_received) + " · agent dropped " +
                   format_count(r.counters.agent_dropped) + " · lost batches " +
                   format_count(r.counters.lost_batches) + " · late " +
                   format_count(r.counters.late_events) + " · unpaired " +
                   format_count(r.counters.unpaired_events),
               r.counters.agent_dropped + r.counters.lost_batches > 0 ? Style::kWarn : Style::kDim);

  for (std::size_t i = 0; i < r.processes.size() && i < kMaxProcessLines; ++i) {
    const ProcessInfo& p = r.processes[i];
    std::string text = "  " + sanitize(p.role) + " pid " + std::to_string(p.pid) + " on " +
                       sanitize(p.host) + " · agent " + sanitize(p.agent_version) + " · device " +
                       sanitize(p.device_source) + " · " +
                       (p.finished ? "finished" : std::to_string(p.open_regions) + " open regions");
    c.add_line().add(std::move(text), Style::kDim);
  }
  if (r.processes.size() > kMaxProcessLines) {
    c.add_line().add(
        "  … " + std::to_string(r.processes.size() - kMaxProcessLines) + " more processes",
        Style::kDim);
  }
}

void metrics_table(Canvas& c, const TopState& s, const TopModel& m, const RankRow& r) {
  std::vector<Column> columns{{"METRIC", kLabelWidth, Align::kLeft, 0}};
  for (const std::string& w : m.windows) {
    const std::string label = window_label(w);
    columns.push_back({w == s.window ? "[" + label + "]" : label, 15, Align::kRight, 1});
  }
  const auto widths = fit_columns(columns, c.width - 2);
  c.lines.push_back(header_line(columns, widths, 2));
  for (const MetricRow& row : kMetricRows) {
    std::vector<Cell> cells{{row.label, Style::kDim}};
    for (const std::string& w : m.windows) {
      const Metrics* metrics = r.window(w);
      cells.push_back(
          {metrics != nullptr ? format_metric(*metrics, row.metric) : std::string(kDash),
           w == s.window ? Style::kBold : Style::kNormal});
    }
    c.lines.push_back(row_line(columns, widths, cells, "", 2));
    // NVML's cross-check goes right under the exact device idle figure.
    if (row.label == std::string_view(kDeviceIdleLabel) && !r.gpu_counters.empty()) {
      std::vector<Cell> nvml{{"NVML util (mean)", Style::kDim}};
      for (const std::string& w : m.windows) {
        nvml.push_back({format_nvml_percent(nvml_utilization(r, w)),
                        w == s.window ? Style::kBold : Style::kNormal});
      }
      c.lines.push_back(row_line(columns, widths, nvml, "", 2));
    }
  }
  std::vector<Cell> verdicts{{"verdict", Style::kDim}};
  for (const std::string& w : m.windows) {
    const Metrics* metrics = r.window(w);
    const std::string v = metrics != nullptr ? metrics->verdict : std::string(kDash);
    verdicts.push_back({v, verdict_style(v)});
  }
  c.lines.push_back(row_line(columns, widths, verdicts, "", 2));
  std::vector<Cell> causes{{"cause", Style::kDim}};
  bool any_cause = false;
  for (const std::string& w : m.windows) {
    const Metrics* metrics = r.window(w);
    const std::string v = metrics != nullptr && !metrics->cause.empty() && metrics->cause != "none"
                              ? metrics->cause
                              : std::string(kDash);
    any_cause = any_cause || v != kDash;
    causes.push_back({v, cause_style(v)});
  }
  if (any_cause) c.lines.push_back(row_line(columns, widths, causes, "", 2));
}

void timeline_section(Canvas& c, const TopState& s, const TopModel& m, const RankRow& r,
                      int budget) {
  Line& title = c.add_line();
  title.add("TIMELINE", Style::kHeader);
  title.add(" last " + std::to_string(s.timeline_seconds) +
                " s before the rank's newest data (+/- to zoom)",
            Style::kDim);
  const bool current = m.timeline && m.timeline->job == s.job && m.timeline->rank == r.rank;
  if (!current) {
    c.add_line().add(m.timeline_error.empty() ? "  loading the timeline…"
                                              : "  timeline unavailable: " + m.timeline_error,
                     Style::kDim);
    return;
  }
  const TimelineView& t = *m.timeline;
  c.lines.push_back(timeline_legend());
  const int columns = std::max(10, c.width - kLabelWidth - 3);
  const auto rows = timeline_rows(t, columns);
  if (rows.empty()) {
    c.add_line().add("  no regions in the last " + std::to_string(s.timeline_seconds) + " s",
                     Style::kDim);
    return;
  }
  const int max_rows = std::max(1, budget - 3);
  for (std::size_t i = 0; i < rows.size() && static_cast<int>(i) < max_rows; ++i) {
    Line line;
    line.add("  " + fit(rows[i].label, kLabelWidth - 1) + "│", Style::kDim);
    for (Span& span : timeline_cells_line(rows[i].cells).spans)
      line.spans.push_back(std::move(span));
    line.add("│", Style::kDim);
    c.lines.push_back(std::move(line));
  }
  if (static_cast<int>(rows.size()) > max_rows) {
    c.add_line().add("  … " + std::to_string(rows.size() - static_cast<std::size_t>(max_rows)) +
                         " more threads (a taller terminal shows them)",
                     Style::kDim);
  }
  c.add_line().add(std::string(static_cast<std::size_t>(kLabelWidth + 2), ' ') +
                       timeline_axis(t.from_ns, t.to_ns, columns),
                   Style::kDim);
  if (t.truncated)
    c.add_line().add("  (truncated: more regions than the collector keeps)", Style::kWarn);
}

}  // namespace

void compose_detail_body(Canvas& c, const TopState& s, const TopModel& m, int rows) {
  const int budget = rows < 0 ? INT_MAX : rows;
  const RankRow* r = selected_rank(s, m);
  if (r == nullptr) {
    c.add_line().add("rank no longer reported; Esc goes back", Style::kDim);
    return;
  }
  const std::size_t start = c.lines.size();
  identity_lines(c, *r, s.job, s.window);
  c.add_blank();
  // The timeline comes first: on a short terminal the metrics table is cut, not the picture.
  const int used = static_cast<int>(c.lines.size() - start);
  timeline_section(c, s, m, *r, budget == INT_MAX ? INT_MAX : budget - used - kMetricsReserve);
  c.add_blank();
  metrics_table(c, s, m, *r);
  if (has_top_files(*r)) {
    c.add_blank();
    for (Line& line : top_files_lines(*r, s.window, c.width))
      c.lines.push_back(std::move(line));
  }
  if (has_top_kernels(*r)) {
    c.add_blank();
    for (Line& line : top_kernels_lines(*r, s.window, c.width))
      c.lines.push_back(std::move(line));
  }
}

}  // namespace stallwatch::tui
