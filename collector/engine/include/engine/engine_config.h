// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector {

inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;

// Thresholds that turn window metrics into a verdict (docs/design.md). Checked in
// this order: idle, waiting-for-peers, data-starved, io-bound, host-bound, well-overlapped.
struct VerdictThresholds {
  double idle_busy_ratio =
      0.02;  // idle: compute, device busy and app I/O each below this share of wall
  double data_stall_ratio = 0.15;       // data-starved: data_stall_ratio >= this
  double unoverlapped_io_ratio = 0.15;  // io-bound: (unoverlapped app I/O ∪ I/O) / wall >= this
  double device_idle_ratio = 0.30;      // host-bound: device idle >= this without a data stall
  // waiting-for-peers (checked after idle): peer_wait_seconds / wall >= this,
  // and at least the rank's own data stall and unoverlapped I/O.
  double peer_wait_ratio = 0.15;
  // The cause of a data-starved rank with captured I/O: storage when
  // loader_io_ratio >= this, else preprocessing.
  double storage_io_ratio = 0.5;
  // The cause of a host-bound rank with launch records: launch-bound when
  // launch_idle_ratio >= this, else unknown.
  double launch_idle_ratio = 0.5;
};

// When a job is "held back" by some of its ranks (docs/api.md, "held_back").
struct StragglerThresholds {
  // Named: a rank that was the latest arrival of collectives causing at least
  // this share of the job's waiting for peers in the window.
  double blame_share = 0.5;
  // ... when the other ranks wait for peers at least this share of their wall
  // time on average (below it, a balanced job's jitter names nobody).
  double cost_ratio = 0.10;
};

struct EngineConfig {
  // Sliding windows, each a multiple of resolution_ns. Totals since start are always kept.
  std::vector<std::int64_t> windows_ns{10 * kNsPerSecond, 60 * kNsPerSecond, 300 * kNsPerSecond};
  // The window whose verdict is a rank's and a job's headline `verdict`: one of
  // windows_ns, or 0 for the totals.
  std::int64_t verdict_window_ns = 60 * kNsPerSecond;
  // Windows end on this grid: [t - W, t) with t = the rank's watermark rounded down.
  // At most 2^32 - 1 ns: per-cell durations are stored as 32-bit nanoseconds.
  std::int64_t resolution_ns = kNsPerSecond;
  // Data older than the watermark minus this is final; later arrivals for it are late.
  std::int64_t lateness_ns = 2 * kNsPerSecond;
  // A rank with no batch for this long (collector clock) is `silent`.
  std::int64_t silent_after_ns = 10 * kNsPerSecond;
  // Finished or silent ranks are forgotten after this long.
  std::int64_t forget_after_ns = 3600 * kNsPerSecond;
  // Per-rank per-resolution history for charts (series API); at least the
  // longest window plus lateness plus one resolution step.
  std::int64_t history_ns = 3600 * kNsPerSecond;
  // Raw regions kept per rank for the timeline view.
  std::int64_t timeline_ns = 60 * kNsPerSecond;
  std::size_t timeline_max_regions = 20'000;
  // Bounds under floods.
  std::size_t max_ranks = 4096;
  std::size_t max_sources_per_rank = 1024;  // at most 65535
  std::size_t max_open_regions_per_source = 4096;
  std::size_t max_steps_kept = 8192;  // per rank, for step-time percentiles
  // Top files by I/O time (docs/api.md): files each finalized resolution
  // cell keeps by name (the rest of the cell is one "other" row), file names
  // (posix_file marks) remembered per source, files a rank's totals keep by
  // name (the first it finalizes; later ones are summed in "other"), and
  // files listed per window (the rest is "other").
  std::size_t top_files_per_cell = 16;
  std::size_t max_files_per_source = 4096;
  std::size_t top_files_total_files = 1024;
  std::size_t top_files_shown = 10;  // at most 1000
  // Top kernels by device time (docs/api.md): names each finalized
  // resolution cell keeps (the rest of the cell is one "other" row).
  std::size_t top_kernels_per_cell = 16;
  // Upper bounds of a per-rank histogram of finalized step durations
  // (FinalizedTotals::step_buckets), ascending; empty: none is kept.
  std::vector<std::int64_t> step_histogram_bounds_ns;

  // MARK names that count a step (value = step index) and an epoch.
  std::string step_mark = "step";
  std::string epoch_start_mark = "epoch.start";
  std::string epoch_end_mark = "epoch.end";
  // COUNTER name giving samples per step.
  std::string batch_size_counter = "batch_size";

  // Clock offsets per host (docs/design.md, "Clocks"): estimated over this
  // sliding window of batches (whole seconds, at least 1 s), and flagged
  // (HostClock::warning) at or above clock_warning_ns.
  std::int64_t clock_window_ns = 60 * kNsPerSecond;
  std::int64_t clock_warning_ns = kNsPerSecond;

  ClassMapping classes = ClassMapping::defaults();
  VerdictThresholds verdict;
  StragglerThresholds straggler;
};

// Returns an empty string when valid, else what is wrong (naming the field).
std::string validate(const EngineConfig& config);

// The most bounds EngineConfig::step_histogram_bounds_ns may have.
inline constexpr std::size_t kMaxStepHistogramBounds = 64;
// Most files EngineConfig::top_files_shown may list per window.
inline constexpr std::size_t kMaxTopFilesShown = 1000;
// The index of the first of `bounds_ns` that is not positive or not above
// the one before it; bounds_ns.size() when every one is (the order
// step_histogram_bounds_ns needs).
std::size_t first_unordered_bound(const std::vector<std::int64_t>& bounds_ns);

}  // namespace stallwatch::collector
