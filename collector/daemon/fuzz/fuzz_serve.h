// SPDX-License-Identifier: MIT
#pragma once

// What the API serves from one snapshot, for the daemon's fuzz targets: the
// jobs list, every job's detail, and `GET /metrics` with every optional
// family (per-rank gauges and job aggregates of `windows_ns`, activity, top
// files). The output is dropped: the targets look for crashes and UB.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/snapshot.h"
#include "serve/prometheus_text.h"
#include "serve/published_state.h"
#include "serve/serve_stats.h"
#include "serve/snapshot_json.h"

namespace stallwatch::collector::fuzz {

inline void serve_snapshot(const std::shared_ptr<const Snapshot>& snapshot,
                           const std::vector<std::int64_t>& windows_ns) {
  std::string out;
  JsonWriter w(out);
  const SnapshotJson json(*snapshot);
  json.write_jobs(w);
  for (const JobSnapshot& job : snapshot->jobs) {
    out.clear();
    JsonWriter detail(out);
    json.write_job_detail(detail, job);
  }
  PublishedState state;
  state.snapshot = snapshot;
  PrometheusConfig every;
  every.per_rank_windows_ns = windows_ns;
  every.job_windows_ns = windows_ns;
  every.rank_activity = true;
  every.top_files = 10;
  prometheus_text(state, ServeStats{}, every);
}

}  // namespace stallwatch::collector::fuzz
