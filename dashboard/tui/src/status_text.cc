// SPDX-License-Identifier: MIT
#include "status_text.h"

#include <algorithm>

#include "format.h"
#include "text_width.h"
#include "verdict_style.h"

namespace stallwatch::tui {
namespace {

constexpr int kLabelWidth = 16;

std::string row(std::string_view label, const std::string& value) {
  return fit(std::string(label) + ":", kLabelWidth) + value + "\n";
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return format_count(n) + " " + std::string(n == 1 ? one : many);
}

std::string job_line(const JobSummary& j, const std::string& window, int name_width) {
  const Aggregate* a = j.window(window);
  const Metrics* m = a != nullptr ? &a->mean : nullptr;
  const std::string verdict = a != nullptr && !a->verdict.empty() ? a->verdict : j.verdict;
  std::string line = "  " + fit(sanitize(j.job), name_width) + "  " + fit(j.state, 8) + "  " +
                     fit(plural(j.ranks, "rank", "ranks"), 9) + "  " +
                     fit(verdict.empty() ? "—" : verdict, 15);
  const std::string cause = a != nullptr && !a->verdict.empty() ? a->cause : j.cause;
  if (!cause.empty() && cause != "none") line += "  cause " + fit(sanitize(cause), 13);
  if (m != nullptr) {
    using catalog::Metric;
    line += "  device idle " + format_percent(m->get(Metric::kDeviceIdleRatio)) + " · data stall " +
            format_percent(m->get(Metric::kDataStallRatio)) + " · overlap " +
            format_percent(m->get(Metric::kOverlapRatio)) + " · " +
            format_rate(m->get(Metric::kStepsPerSecond)) + " steps/s";
  }
  if (j.device_source == kComputeProxy) line += " · " + std::string(kComputeProxyLabel);
  if (j.counters.agent_dropped + j.counters.lost_batches > 0) {
    line += " · dropped " + format_count(j.counters.agent_dropped) + ", lost batches " +
            format_count(j.counters.lost_batches);
  }
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line + "\n";
}

}  // namespace

std::string format_status(const std::string& url, const DaemonStatus& s, const JobsPage& jobs) {
  std::string out;
  out += "stallwatchd " + sanitize(s.version) + " at " + sanitize(url) + "\n";
  out += row("uptime", format_seconds(s.uptime_seconds) + " · tick " + format_count(s.tick) +
                           " every " + std::to_string(s.tick_ms) + " ms");
  std::vector<std::string> endpoints;
  for (const std::string& e : s.endpoints) {
    const bool curve =
        std::find(s.curve_endpoints.begin(), s.curve_endpoints.end(), e) != s.curve_endpoints.end();
    endpoints.push_back(sanitize(e) + (curve ? " (CURVE)" : ""));
  }
  out += row("ingest", endpoints.empty() ? std::string("no endpoints") : join(endpoints, ", "));
  out += row("received", plural(s.frames_received, "frame", "frames") + " · " +
                             format_bytes(s.bytes_received) + " · " +
                             plural(s.events_received, "event", "events") + " · lag " +
                             format_seconds(s.ingest_lag_seconds));
  std::uint64_t invalid_total = 0;
  std::vector<std::string> reasons;
  for (const auto& [reason, count] : s.invalid_frames) {
    invalid_total += count;
    if (count > 0) reasons.push_back(sanitize(reason) + " " + format_count(count));
  }
  out += row("invalid frames",
             invalid_total == 0 ? std::string("none")
                                : format_count(invalid_total) + " (" + join(reasons, ", ") + ")");
  if (!s.curve_endpoints.empty()) {
    std::uint64_t refused_total = 0;
    std::vector<std::string> refused;
    for (const auto& [reason, count] : s.rejected_connections) {
      refused_total += count;
      if (count > 0) refused.push_back(sanitize(reason) + " " + format_count(count));
    }
    out += row("refused", refused_total == 0
                              ? std::string("none")
                              : format_count(refused_total) + " (" + join(refused, ", ") + ")");
  }
  if (!s.clock_warnings.empty()) {
    std::vector<std::string> hosts;
    for (const auto& [host, offset] : s.clock_warnings) {
      hosts.push_back(sanitize(host) + " " + format_seconds(offset < 0 ? -offset : offset) +
                      (offset < 0 ? " behind" : " ahead"));
    }
    out += row("clock warning", join(hosts, ", ") + " (job views correct for it)");
  }
  if (s.journal) {
    const auto& j = *s.journal;
    std::string line =
        (j.writing ? std::string("writing") : "NOT WRITING (retrying every second)") + " · " +
        plural(j.records_written, "batch", "batches") + " written (" +
        format_bytes(j.bytes_written) + ")";
    if (j.records_unwritten > 0) line += " · " + format_count(j.records_unwritten) + " unwritten";
    if (!j.writing && !j.error.empty()) line += " · " + sanitize(j.error);
    out += row("journal", line);
  }
  out += row("engine", plural(s.ranks, "rank", "ranks") + " · " +
                           plural(s.sources, "source", "sources") + " · " +
                           plural(s.evicted_ranks, "evicted rank", "evicted ranks") + " · " +
                           plural(s.rejected_sources, "rejected source", "rejected sources") +
                           " · ~" + format_bytes(s.approx_memory_bytes));
  out += row("loss", "agent dropped " + format_count(s.counters.agent_dropped) +
                         " · lost batches " + format_count(s.counters.lost_batches) +
                         " · late events " + format_count(s.counters.late_events) + " · unpaired " +
                         format_count(s.counters.unpaired_events));
  std::vector<std::string> windows;
  for (const std::string& w : s.windows)
    windows.push_back(window_label(w));
  out += row("windows",
             join(windows, ", ") + " (verdicts over " + window_label(s.verdict_window) + ")");
  out += row("jobs", jobs.jobs.empty() ? std::string("none yet") : format_count(jobs.jobs.size()));
  int name_width = 8;
  for (const JobSummary& j : jobs.jobs)
    name_width = std::max(name_width, display_width(sanitize(j.job)));
  name_width = std::min(name_width, 40);
  const std::string window = jobs.verdict_window.empty() ? s.verdict_window : jobs.verdict_window;
  for (const JobSummary& j : jobs.jobs)
    out += job_line(j, window, name_width);
  return out;
}

}  // namespace stallwatch::tui
