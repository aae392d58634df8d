// SPDX-License-Identifier: MIT
#pragma once

// The client-side view of docs/api.md: plain structs the terminal dashboard
// reads, filled by api_parse.h from the daemon's JSON. Field names follow the
// API; a JSON null (an undefined ratio, a window with no data) is an empty
// optional, never NaN. Only the fields the TUI shows are kept.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/metric_table.h"

namespace stallwatch::tui {

// One `Metrics` object: a value for each metric of the catalog's table
// (catalog/metric_table.h), indexed by its id.
struct Metrics {
  std::string window;
  std::array<std::optional<double>, catalog::kMetricCount> values;
  std::int64_t end_ns = 0;
  std::string verdict;
  std::string cause;  // of a data-starved verdict; empty otherwise (JSON null)

  std::optional<double> get(catalog::Metric id) const { return values[catalog::index_of(id)]; }
  std::optional<double>& operator[](catalog::Metric id) { return values[catalog::index_of(id)]; }
  // A count (`steps`): 0 when the daemon sent none.
  std::uint64_t count(catalog::Metric id) const {
    return static_cast<std::uint64_t>(get(id).value_or(0));
  }
};

struct Counters {
  std::uint64_t events_received = 0;
  std::uint64_t batches_received = 0;
  std::uint64_t agent_dropped = 0;
  std::uint64_t lost_batches = 0;
  std::uint64_t late_events = 0;
  std::uint64_t unpaired_events = 0;
};

struct ProcessInfo {
  std::string host;
  std::int64_t pid = 0;
  std::int64_t ppid = 0;
  std::string role;
  std::string device_source;
  std::string agent_version;
  bool finished = false;
  std::uint64_t open_regions = 0;
};

// One NVML counter of a `GpuCounters` object: the latest sample and the mean
// per window name.
struct GpuReading {
  std::optional<double> latest;
  std::map<std::string, std::optional<double>> mean;

  std::optional<double> mean_of(const std::string& window) const {
    const auto it = mean.find(window);
    return it == mean.end() ? std::nullopt : it->second;
  }
};

// A rank's NVML readings of one device (`GpuCounters`): a cross-check beside
// device idle, not device-busy time.
struct GpuCounters {
  std::int64_t device = 0;
  std::optional<double> age_seconds;
  GpuReading utilization_percent;
  GpuReading sm_clock_mhz;
  GpuReading memory_used_bytes;
  GpuReading power_watts;
};

// A file's I/O calls in one window, or the rest (`FileIo`, docs/api.md
// "Top files by I/O time").
struct FileIo {
  std::string path;  // empty for the rest
  std::optional<double> io_seconds;
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  std::int64_t ops = 0;
};

// A rank's top files by I/O time in one window: most time first, then the rest.
struct TopFilesView {
  std::vector<FileIo> files;
  FileIo other;
};

// A kernel's device time in one window, or the rest (`Kernel`, docs/api.md
// "Top kernels by device time").
struct KernelTime {
  std::string name;  // empty for the rest
  std::optional<double> device_seconds;
  std::int64_t count = 0;
};

// A rank's top kernels by device time in one window: most first, then the rest.
struct TopKernelsView {
  std::vector<KernelTime> kernels;
  KernelTime other;
};

// A `RankRow` of a job detail.
struct RankRow {
  std::int32_t rank = 0;
  std::string state;
  std::string verdict;
  std::string cause;
  std::string device_source;
  // Its host's clock minus the collector's, and whether that is past the
  // daemon's warning threshold (docs/api.md, "RankRow").
  double clock_offset_seconds = 0;
  bool clock_warning = false;
  std::int64_t watermark_ns = 0;
  std::int64_t epoch = -1;
  std::int64_t step = -1;
  Counters counters;
  std::map<std::string, Metrics> windows;
  std::vector<ProcessInfo> processes;
  std::vector<GpuCounters> gpu_counters;              // sorted by device; empty without NVML
  std::map<std::string, TopFilesView> top_files;      // by window name
  std::map<std::string, TopKernelsView> top_kernels;  // by window name

  const Metrics* window(const std::string& name) const {
    const auto it = windows.find(name);
    return it == windows.end() ? nullptr : &it->second;
  }
};

// An `Aggregate`: mean and max over a job's ranks for one window.
struct Aggregate {
  Metrics mean;
  Metrics max;
  std::optional<std::int32_t> straggler_rank;
  std::string verdict;
  // Who holds the job back (docs/api.md, "held_back"), as the header shows it:
  // "rank 3: data-starved, costs the other 3 ranks 38 %"; empty: nobody.
  std::string held_back;
  std::string cause;
};

// A `JobSummary` (from /api/v1/jobs and ticks) or the head of a job detail.
struct JobSummary {
  std::string job;
  std::string state;
  std::uint64_t ranks = 0;
  std::uint64_t active_ranks = 0;
  std::string verdict;
  std::string cause;
  std::string device_source;
  std::map<std::string, Aggregate> summary;
  Counters counters;

  const Aggregate* window(const std::string& name) const {
    const auto it = summary.find(name);
    return it == summary.end() ? nullptr : &it->second;
  }
};

// GET /api/v1/jobs/{job}, or a tick's `job`.
struct JobDetail {
  JobSummary head;
  std::vector<RankRow> ranks;
};

struct Alert {
  std::string id;
  std::string name;
  std::string state;  // pending, firing, resolved
  std::string severity;
  std::string job;
  std::optional<std::int32_t> rank;
  std::string metric;
  std::string window;
  std::optional<double> value;
  std::optional<double> threshold;
  std::string summary;  // annotations.summary
};

// GET /api/v1/jobs, or the job list of a tick.
struct JobsPage {
  std::int64_t now_ns = 0;
  std::uint64_t tick = 0;
  std::vector<std::string> windows;
  std::string verdict_window;
  std::vector<JobSummary> jobs;
};

// The WebSocket `hello`.
struct StreamHello {
  std::string version;
  std::int64_t tick_ms = 0;
  std::vector<std::string> windows;
  std::string verdict_window;
};

// The WebSocket `tick`.
struct StreamTick {
  std::uint64_t tick = 0;
  std::int64_t now_ns = 0;
  std::vector<JobSummary> jobs;
  std::vector<Alert> alerts;
  std::optional<JobDetail> job;
};

// A thread of the timeline, or a device lane (GPU work recorded per device
// and stream), which carries its device and a label ("GPU 0 · stream 7").
struct TimelineThread {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string role;
  std::optional<std::int64_t> device;
  std::string label;
};

struct TimelineRegion {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool open = false;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string
      cls;  // the colour class: device_busy, fetch, compute, comm, io, app_io, pipeline, other
  std::string name;
};

// GET /api/v1/jobs/{job}/ranks/{rank}/timeline.
struct TimelineView {
  std::string job;
  std::int32_t rank = 0;
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;
  bool truncated = false;
  std::vector<TimelineThread> threads;
  std::vector<TimelineRegion> regions;
};

// GET /api/v1/jobs/{job}/series: one metric per rank, one point per second.
struct SeriesView {
  std::string job;
  std::string metric;
  std::string window;
  std::vector<double> t;  // Unix seconds
  std::map<std::int32_t, std::vector<std::optional<double>>> ranks;
};

// GET /api/v1/status.
struct DaemonStatus {
  std::string version;
  double uptime_seconds = 0;
  std::uint64_t tick = 0;
  std::int64_t tick_ms = 0;
  std::vector<std::string> endpoints;
  std::uint64_t frames_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t events_received = 0;
  std::vector<std::pair<std::string, std::uint64_t>> invalid_frames;
  std::vector<std::string> curve_endpoints;  // those of `endpoints` that take only CURVE
  // Connections refused in the CURVE handshake, by reason.
  std::vector<std::pair<std::string, std::uint64_t>> rejected_connections;
  // Agent hosts whose clock is off by at least the daemon's warning threshold:
  // host and offset (its clock minus the collector's) in seconds.
  std::vector<std::pair<std::string, double>> clock_warnings;
  double ingest_lag_seconds = 0;
  // The daemon's journal; absent when it runs without one.
  struct Journal {
    bool writing = false;
    std::string error;
    std::uint64_t records_written = 0;
    std::uint64_t records_unwritten = 0;
    std::uint64_t bytes_written = 0;
  };
  std::optional<Journal> journal;
  std::uint64_t ranks = 0;
  std::uint64_t sources = 0;
  std::uint64_t late_events = 0;
  std::uint64_t evicted_ranks = 0;
  std::uint64_t rejected_sources = 0;
  std::uint64_t approx_memory_bytes = 0;
  Counters counters;
  std::vector<std::string> windows;
  std::string verdict_window;
};

}  // namespace stallwatch::tui
