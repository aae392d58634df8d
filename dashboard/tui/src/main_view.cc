// SPDX-License-Identifier: MIT
#include "main_view.h"

#include <algorithm>
#include <climits>

#include "format.h"
#include "sparkline.h"
#include "text_width.h"
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

constexpr int kIndent = 2;
constexpr int kBarWidth = 10;
constexpr std::size_t kSparkColumn = 11;  // index of the sparkline in rank_columns()

using catalog::Metric;

std::optional<double> get(const Metrics* m, Metric id) {
  return m != nullptr ? m->get(id) : std::nullopt;
}

Cell overlap_cell(const Metrics* m) {
  const auto ratio = get(m, Metric::kOverlapRatio);
  return {ratio_bar(ratio, kBarWidth) + " " + fit(format_percent(ratio, 0), 4, Align::kRight)};
}

// A data stall's cause; a dash for none (another verdict, or a daemon that
// sends no cause).
Cell cause_cell(const std::string& cause) {
  if (cause.empty() || cause == "none") return {std::string(kDash), Style::kDim};
  return {sanitize(cause), cause_style(cause)};
}

Cell device_cell(const std::string& source) {
  return {sanitize(source.empty() ? std::string(kDash) : source), source_style(source)};
}

Cell loss_cell(std::uint64_t dropped, std::uint64_t lost) {
  return {format_loss(dropped, lost), dropped + lost > 0 ? Style::kWarn : Style::kNormal};
}

// The first index of the page of `per_page` items that holds `selected`.
std::size_t page_start(std::size_t selected, std::size_t per_page) {
  return per_page == 0 ? 0 : selected / per_page * per_page;
}

void page_note(Canvas& c, const char* what, std::size_t first, std::size_t shown, std::size_t total,
               const char* keys) {
  c.add_line().add("  " + std::string(what) + " " + std::to_string(first + 1) + "–" +
                       std::to_string(first + shown) + " of " + std::to_string(total) + " (" +
                       keys + ")",
                   Style::kDim);
}

std::vector<Cell> job_cells(const JobSummary& j, const std::string& window) {
  const Aggregate* a = j.window(window);
  const Metrics* m = a != nullptr ? &a->mean : nullptr;
  const std::string verdict = a != nullptr && !a->verdict.empty() ? a->verdict : j.verdict;
  const std::string cause = a != nullptr && !a->verdict.empty() ? a->cause : j.cause;
  return {
      {sanitize(j.job)},
      {j.state, state_style(j.state)},
      {std::to_string(j.ranks)},
      {verdict, verdict_style(verdict)},
      cause_cell(cause),
      {format_percent(get(m, Metric::kDeviceIdleRatio))},
      {format_percent(get(m, Metric::kDataStallRatio)),
       verdict == "data-starved" ? Style::kBad : Style::kNormal},
      {format_percent(get(m, Metric::kOverlapRatio))},
      {format_rate(get(m, Metric::kStepsPerSecond))},
      device_cell(j.device_source),
      loss_cell(j.counters.agent_dropped, j.counters.lost_batches),
  };
}

std::vector<Cell> rank_cells(const RankRow& r, const TopModel& model, const std::string& window,
                             int spark_width) {
  const Metrics* m = r.window(window);
  const std::string verdict = m != nullptr && !m->verdict.empty() ? m->verdict : r.verdict;
  const std::string cause = m != nullptr && !m->verdict.empty() ? m->cause : r.cause;
  const auto history = model.history.values(r.rank);
  return {
      {std::to_string(r.rank)},
      {r.state, state_style(r.state)},
      {verdict, verdict_style(verdict)},
      cause_cell(cause),
      {format_percent(get(m, Metric::kDeviceIdleRatio))},
      {format_percent(get(m, Metric::kDataStallRatio)),
       verdict == "data-starved" ? Style::kBad : Style::kNormal},
      {format_seconds(get(m, Metric::kUnoverlappedAppIoSeconds))},
      overlap_cell(m),
      {format_rate(get(m, Metric::kStepsPerSecond))},
      device_cell(r.device_source),
      loss_cell(r.counters.agent_dropped, r.counters.lost_batches),
      {sparkline(history, spark_width), verdict_style(verdict)},
  };
}

// Returns the number of lines used.
int compose_jobs(Canvas& c, const TopState& s, const TopModel& m, int budget) {
  const auto columns = job_columns();
  const auto widths = fit_columns(columns, c.width - kIndent);
  std::size_t selected = 0;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    if (m.jobs[i].job == s.job) selected = i;
  }
  const std::size_t total = m.jobs.size();
  const auto per_page = static_cast<std::size_t>(
      std::clamp(budget / 4, 1, static_cast<int>(std::min<std::size_t>(total, INT_MAX))));
  const std::size_t shown_max = budget == INT_MAX ? total : per_page;
  const std::size_t first = page_start(selected, shown_max);
  const std::size_t shown = std::min(shown_max, total - first);

  int used = 0;
  c.lines.push_back(header_line(columns, widths, kIndent));
  ++used;
  for (std::size_t i = first; i < first + shown; ++i) {
    const JobSummary& j = m.jobs[i];
    const bool current = j.job == s.job;
    Line line = row_line(columns, widths, job_cells(j, s.window), current ? ">" : "", kIndent);
    c.lines.push_back(std::move(line));
    ++used;
  }
  if (shown < total) {
    page_note(c, "jobs", first, shown, total, "←/→");
    ++used;
  }
  return used;
}

// " · clock warning: rank 2 +1m 30s, rank 3 +1m 30s" for the ranks whose
// host clock is off past the daemon's threshold (job views correct for it).
void clock_warning(Line& line, const std::vector<RankRow>& ranks) {
  std::string text;
  std::size_t shown = 0;
  std::size_t warned = 0;
  for (const RankRow& r : ranks) {
    if (!r.clock_warning) continue;
    ++warned;
    if (shown == 3) continue;
    text += (shown++ == 0 ? "" : ", ") + std::string("rank ") + std::to_string(r.rank) + " " +
            (r.clock_offset_seconds > 0 ? "+" : "") + format_seconds(r.clock_offset_seconds);
  }
  if (warned == 0) return;
  if (warned > shown) text += " and " + std::to_string(warned - shown) + " more";
  line.add(" · clock warning: " + text, Style::kWarn);
}

void job_line(Canvas& c, const TopState& s, const JobDetail& d) {
  const Aggregate* a = d.head.window(s.window);
  const std::string verdict = a != nullptr && !a->verdict.empty() ? a->verdict : d.head.verdict;
  Line& line = c.add_line();
  line.add(sanitize(d.head.job), Style::kBold);
  line.add(" · " + std::to_string(d.ranks.size()) + (d.ranks.size() == 1 ? " rank" : " ranks"));
  line.add(" · " + window_label(s.window) + " verdict ");
  line.add(verdict.empty() ? std::string(kDash) : verdict, verdict_style(verdict));
  const std::string cause = a != nullptr && !a->verdict.empty() ? a->cause : d.head.cause;
  if (!cause.empty() && cause != "none") line.add(" · cause " + cause, cause_style(cause));
  if (a != nullptr && !a->held_back.empty()) {
    line.add(" · held back by " + sanitize(a->held_back), Style::kBad);
  } else if (a != nullptr && a->straggler_rank) {
    line.add(" · straggler rank " + std::to_string(*a->straggler_rank), Style::kWarn);
  }
  clock_warning(line, d.ranks);
}

}  // namespace

std::vector<Column> job_columns() {
  return {
      {"JOB", 12, Align::kLeft, 0, 32},     {"STATE", 8, Align::kLeft, 5},
      {"RANKS", 5, Align::kRight, 4},       {"VERDICT", 15, Align::kLeft, 0},
      {"CAUSE", 13, Align::kLeft, 6},       {"DEV IDLE", 8, Align::kRight, 0},
      {"DATA STALL", 10, Align::kRight, 0}, {"OVERLAP", 7, Align::kRight, 2},
      {"STEPS/S", 7, Align::kRight, 1},     {"DEVICE", 13, Align::kLeft, 7},
      {"DROP/LOST", 9, Align::kRight, 6},
  };
}

std::vector<Column> rank_columns(const TopModel& model) {
  return {
      {"RANK", 4, Align::kRight, 0},
      {"STATE", 8, Align::kLeft, 5},
      {"VERDICT", 15, Align::kLeft, 0},
      {"CAUSE", 13, Align::kLeft, 6},
      {"DEV IDLE", 8, Align::kRight, 0},
      {"DATA STALL", 10, Align::kRight, 0},
      {"UNOVL I/O", 9, Align::kRight, 4},
      {"OVERLAP", 15, Align::kLeft, 1},
      {"STEPS/S", 7, Align::kRight, 2},
      {"DEVICE", 13, Align::kLeft, 7},
      {"DROP/LOST", 9, Align::kRight, 6},
      {"STALL " + window_label(model.spark_window), 10, Align::kLeft, 3, 60},
  };
}

void compose_main_body(Canvas& c, const TopState& s, const TopModel& m, int rows) {
  int budget = rows < 0 ? INT_MAX : rows;
  if (!m.has_data()) {
    c.add_line().add(m.interactive ? "waiting for the collector…" : "no answer from the collector",
                     Style::kDim);
    return;
  }
  if (m.jobs.empty()) {
    c.add_line().add("no jobs yet — start a training job with `python -m stallwatch.run …`",
                     Style::kDim);
    return;
  }
  budget -= compose_jobs(c, s, m, budget);
  if (budget < 3) return;
  c.add_blank();
  --budget;

  if (!m.detail || m.detail->head.job != s.job) {
    const bool known = m.find_job(s.job) != nullptr;
    c.add_line().add(known ? "waiting for the ranks of " + sanitize(s.job) + "…"
                           : "job '" + sanitize(s.job) + "' is not known to the collector",
                     Style::kDim);
    return;
  }
  job_line(c, s, *m.detail);
  --budget;

  const auto columns = rank_columns(m);
  const auto widths = fit_columns(columns, c.width - kIndent);
  const int spark_width = widths[kSparkColumn];
  c.lines.push_back(header_line(columns, widths, kIndent));
  --budget;

  const auto ranks = visible_ranks(s, m);
  const bool proxy = std::any_of(ranks.begin(), ranks.end(), [](const RankRow* r) {
    return r->device_source == kComputeProxy;
  });
  const int reserved = proxy ? 1 : 0;
  std::size_t selected = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (s.rank && ranks[i]->rank == *s.rank) selected = i;
  }
  std::size_t per_page = ranks.size();
  if (static_cast<long>(ranks.size()) > budget - reserved) {
    per_page = static_cast<std::size_t>(std::max(1, budget - reserved - 1));
  }
  const std::size_t first = page_start(selected, per_page);
  const std::size_t shown = std::min(per_page, ranks.size() - first);
  for (std::size_t i = first; i < first + shown; ++i) {
    const bool cursor = m.interactive && s.rank && ranks[i]->rank == *s.rank;
    Line line = row_line(columns, widths, rank_cells(*ranks[i], m, s.window, spark_width),
                         cursor ? ">" : "", kIndent);
    line.selected = cursor;
    c.lines.push_back(std::move(line));
  }
  if (shown < ranks.size()) page_note(c, "ranks", first, shown, ranks.size(), "PgUp/PgDn");
  if (proxy) c.add_line().add("  compute-proxy: " + std::string(kProxyNote), Style::kDim);
}

}  // namespace stallwatch::tui
