// SPDX-License-Identifier: MIT
#include "top_once.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <ostream>

#include "api_parse.h"
#include "api_paths.h"
#include "frame.h"
#include "http_fetch.h"
#include "terminal_probe.h"

namespace stallwatch::tui {
namespace {

constexpr int kDefaultWidth = 120;
constexpr int kSeedSeconds = 240;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string spark_window_of(const std::vector<std::string>& windows) {
  std::string best;
  long best_seconds = LONG_MAX;
  for (const std::string& w : windows) {
    if (w.size() < 2 || w.back() != 's') continue;
    long seconds = 0;
    const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size() - 1, seconds);
    if (ec != std::errc{} || ptr != w.data() + w.size() - 1 || seconds <= 0) continue;
    if (seconds < best_seconds) {
      best_seconds = seconds;
      best = w;
    }
  }
  return best;
}

int run_top_once(const TopOptions& options, std::ostream& out, std::ostream& err) {
  FetchOptions fetch;
  fetch.token = options.token;
  fetch.ca_file = options.ca_file;
  const HttpResult jobs = http_fetch(options.url, kJobsPath, fetch);
  if (!jobs.ok()) {
    err << "stallwatch top: "
        << (jobs.answered() ? "the collector at " : "cannot reach the collector at ")
        << options.url.text << (jobs.answered() ? " refused: " : ": ") << describe_failure(jobs)
        << "\n";
    return 1;
  }
  auto page = parse_jobs_page(jobs.body);
  if (!page.ok()) {
    err << "stallwatch top: unexpected answer from " << options.url.text << kJobsPath << ": "
        << page.error << "\n";
    return 1;
  }

  TopModel model;
  model.url = options.url.text;
  model.windows = std::move(page.value->windows);
  model.verdict_window = std::move(page.value->verdict_window);
  model.jobs = std::move(page.value->jobs);
  model.spark_window = spark_window_of(model.windows);

  TopState state;
  state.job = options.job;
  state.job_pinned = !options.job.empty();
  if (!options.window.empty()) {
    if (std::find(model.windows.begin(), model.windows.end(), options.window) ==
        model.windows.end()) {
      err << "stallwatch top: --window: the collector has no window '" << options.window
          << "' (it has: " << join(model.windows) << ")\n";
      return 2;
    }
    state.window = options.window;
  }
  reconcile(state, model);

  if (model.find_job(state.job) != nullptr) {
    const HttpResult detail = http_fetch(options.url, job_path(state.job), fetch);
    if (detail.ok()) {
      auto parsed = parse_job_detail(detail.body);
      if (parsed.ok()) model.detail = std::move(parsed.value);
    }
    model.history.reset(state.job);
    if (!model.spark_window.empty()) {
      const HttpResult series = http_fetch(
          options.url, series_path(state.job, model.spark_metric, model.spark_window, kSeedSeconds),
          fetch);
      if (series.ok()) {
        const auto parsed = parse_series(series.body);
        if (parsed.ok()) model.history.seed(*parsed.value);
      }
    }
  }
  const HttpResult alerts = http_fetch(options.url, kAlertsPath, fetch);
  if (alerts.ok()) {
    auto parsed = parse_alerts(alerts.body);
    if (parsed.ok()) model.alerts = std::move(*parsed.value);
  }
  reconcile(state, model);

  const int width = options.width > 0 ? options.width : terminal_columns(kDefaultWidth);
  out << render_plain(compose_frame(state, model, width, 0), !locale_is_utf8());
  out.flush();
  return 0;
}

}  // namespace stallwatch::tui
