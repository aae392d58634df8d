// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/snapshot.h"
#include "serve/json_writer.h"

namespace stallwatch::collector {

// "10s", "60s", "300s" for configured windows, "total" for 0 (docs/api.md);
// windows that are not whole seconds are named in milliseconds ("1500ms").
std::string window_name(std::int64_t window_ns);

// Writes one engine Snapshot as the API's JSON objects (docs/api.md: Metrics,
// Counters, JobSummary, RankRow, job detail, the jobs list). Streams straight
// into a JsonWriter: 256 ranks x 4 windows take about a millisecond.
//
// Borrows the snapshot; construct one per request or tick, on any thread.
class SnapshotJson {
 public:
  explicit SnapshotJson(const Snapshot& snapshot);

  const Snapshot& snapshot() const { return snapshot_; }
  std::string_view verdict_window() const { return names_[verdict_index_].second; }

  // The `GET /api/v1/jobs` body.
  void write_jobs(JsonWriter& w) const;
  // The `GET /api/v1/jobs/{job}` body.
  void write_job_detail(JsonWriter& w, const JobSnapshot& job) const;
  // ["10s", "60s", "300s", "total"]
  void write_window_names(JsonWriter& w) const;

  void write_job_summary(JsonWriter& w, const JobSnapshot& job) const;
  void write_rank_row(JsonWriter& w, const RankSnapshot& rank) const;
  void write_metrics(JsonWriter& w, const WindowMetrics& m) const;
  static void write_counters(JsonWriter& w, const Counters& c);
  // "cause": the cause's name, or null when it is none.
  static void write_cause(JsonWriter& w, Cause c);

 private:
  std::string_view name_of(std::int64_t window_ns) const;
  // Each entry's window name (entries have `window_ns`): the snapshot's, else
  // window_name()'s, kept in `fallback`, which must outlive the result.
  template <class Entries>
  std::vector<std::string_view> window_names(const Entries& entries,
                                             std::vector<std::string>& fallback) const;
  void write_header_fields(JsonWriter& w) const;
  void write_aggregates(JsonWriter& w, const JobSnapshot& job) const;
  static void write_held_back(JsonWriter& w, const JobWindow::HeldBack& h);

  const Snapshot& snapshot_;
  // (window_ns, name) for the snapshot's windows; never empty.
  std::vector<std::pair<std::int64_t, std::string>> names_;
  std::size_t verdict_index_ = 0;  // into names_
};

}  // namespace stallwatch::collector
