// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace stallwatch::collector {

// What `GET /metrics` exports beyond its defaults (docs/api.md, `GET
// /metrics`; the `[prometheus]` section of stallwatchd.toml). Windows are
// window lengths in ns, 0 for the totals; one the snapshot does not have is
// skipped. By default each rank exports its cumulative counters and a few
// gauges, each job its aggregates over the verdict window.
struct PrometheusConfig {
  // Windows whose per-rank gauges of every window metric
  // (`stallwatch_<metric>{job_id,rank,window}`) and verdict are exported.
  std::vector<std::int64_t> per_rank_windows_ns;
  // Window of the per-rank step-time p50/p95 gauges; none: the verdict window.
  std::optional<std::int64_t> step_window_ns;
  // Windows of the per-job aggregates (`stallwatch_job_<metric>`); empty:
  // the verdict window.
  std::vector<std::int64_t> job_windows_ns;
  // Per rank also: events and batches received, the latest epoch and step.
  bool rank_activity = false;
  // Per rank with captured file I/O: its files with the most I/O time over
  // the verdict window (`stallwatch_top_file_io_seconds`), at most this many
  // (and at most the engine's top_files_shown); 0: none.
  std::size_t top_files = 3;
};

}  // namespace stallwatch::collector
