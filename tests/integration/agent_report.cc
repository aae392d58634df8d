// SPDX-License-Identifier: MIT
#include "agent_report.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

namespace stallwatch::test {
namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

// Slack on top of the brackets: JSON doubles of seconds, rounding to ns.
constexpr double kSlackSeconds = 2e-6;

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// Union of `intervals` clipped to [lo, hi), as sorted disjoint intervals.
std::vector<Interval> union_of(std::vector<Interval> intervals, std::int64_t lo, std::int64_t hi) {
  std::vector<Interval> out;
  for (auto& [a, b] : intervals) {
    a = std::max(a, lo);
    b = std::min(b, hi);
  }
  std::erase_if(intervals, [](const Interval& i) { return i.first >= i.second; });
  std::sort(intervals.begin(), intervals.end());
  for (const auto& i : intervals) {
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

std::int64_t length(const std::vector<Interval>& disjoint) {
  std::int64_t total = 0;
  for (const auto& [a, b] : disjoint)
    total += b - a;
  return total;
}

// |A \ B| for sorted disjoint sets: |A ∪ B| - |B|.
std::int64_t minus(const std::vector<Interval>& a, const std::vector<Interval>& b, std::int64_t lo,
                   std::int64_t hi) {
  std::vector<Interval> both = a;
  both.insert(both.end(), b.begin(), b.end());
  return length(union_of(std::move(both), lo, hi)) - length(b);
}

}  // namespace

std::optional<AgentReport> load_agent_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  AgentReport report;
  bool has_stats = false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (kind == "region") {
      RecordedRegion r;
      s >> r.cls >> r.begin.lo >> r.begin.hi >> r.end.lo >> r.end.hi;
      report.regions.push_back(r);
    } else if (kind == "mark") {
      std::string name;
      std::int64_t value = 0;
      Stamp at;
      s >> name >> value >> at.lo >> at.hi;
      report.step_marks.push_back(at);
    } else if (kind == "counter") {
      std::string name;
      Stamp at;
      s >> name >> report.batch_size >> at.lo >> at.hi;
    } else if (kind == "stats") {
      AgentStats& st = report.stats;
      s >> st.events_recorded >> st.events_dropped >> st.events_sent >> st.events_lost_in_send >>
          st.batches_sent >> st.queue_depth >> st.send_failures;
      has_stats = true;
    }
    if (s.fail()) return std::nullopt;
  }
  if (!has_stats) return std::nullopt;
  return report;
}

ExpectedWindow expected_window(const AgentReport& report, std::int64_t start_ns,
                               std::int64_t end_ns) {
  ExpectedWindow w;
  const std::int64_t wall_ns = end_ns - start_ns;
  w.wall_seconds = seconds(wall_ns);

  std::vector<Interval> compute;
  std::vector<Interval> fetch;
  std::vector<Interval> app_io;
  std::int64_t compute_jitter = 0;
  std::int64_t fetch_jitter = 0;
  std::int64_t loader_jitter = 0;
  for (const RecordedRegion& r : report.regions) {
    const Interval i{r.begin.mid(), r.end.mid()};
    const bool touches = r.end.hi >= start_ns && r.begin.lo < end_ns;
    const std::int64_t jitter = touches ? (r.begin.hi - r.begin.lo) + (r.end.hi - r.end.lo) : 0;
    if (r.cls == "compute") {
      compute.push_back(i);
      compute_jitter += jitter;
    } else if (r.cls == "fetch") {
      fetch.push_back(i);
      app_io.push_back(i);
      fetch_jitter += jitter;
    } else {
      app_io.push_back(i);
      loader_jitter += jitter;
    }
  }
  const auto c = union_of(compute, start_ns, end_ns);
  const auto f = union_of(fetch, start_ns, end_ns);
  const auto a = union_of(app_io, start_ns, end_ns);
  const auto expect = [](std::int64_t ns, std::int64_t jitter) {
    return Expected{seconds(ns), seconds(jitter) + kSlackSeconds};
  };
  w.compute_seconds = expect(length(c), compute_jitter);
  w.fetch_seconds = expect(length(f), fetch_jitter);
  w.app_io_seconds = expect(length(a), fetch_jitter + loader_jitter);
  w.unoverlapped_app_io_seconds =
      expect(minus(a, c, start_ns, end_ns), fetch_jitter + loader_jitter + compute_jitter);
  w.data_stall_seconds = expect(minus(f, c, start_ns, end_ns), fetch_jitter + compute_jitter);
  if (wall_ns > 0) {
    w.device_idle_ratio = {1.0 - w.compute_seconds.value / w.wall_seconds,
                           w.compute_seconds.tolerance / w.wall_seconds};
    w.data_stall_ratio = {w.data_stall_seconds.value / w.wall_seconds,
                          w.data_stall_seconds.tolerance / w.wall_seconds};
  }

  for (std::size_t i = 0; i < report.step_marks.size(); ++i) {
    const Stamp& m = report.step_marks[i];
    if (m.lo >= start_ns && m.hi < end_ns) ++w.steps_min;
    if (m.hi >= start_ns && m.lo < end_ns) ++w.steps_max;
    if (i > 0 && m.mid() >= start_ns && m.mid() < end_ns) {
      w.step_seconds.push_back(seconds(m.mid() - report.step_marks[i - 1].mid()));
    }
  }
  std::sort(w.step_seconds.begin(), w.step_seconds.end());
  return w;
}

}  // namespace stallwatch::test
