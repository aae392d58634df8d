// SPDX-License-Identifier: MIT
#pragma once

// Immutable results the engine publishes once per tick. Serving, alerts,
// Prometheus and the dashboards read these without touching the engine.
//
// Ratios that are undefined (e.g. overlap_ratio with no app I/O, any ratio of
// an empty window) are NaN; serializers write them as JSON null.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/vocabulary.h"
#include "engine/comm_call.h"
#include "engine/decoded_batch.h"
#include "engine/peer_wait_span.h"

namespace stallwatch::collector {

// The verdicts, rank states and device sources are named and explained in
// the catalog (catalog/vocabulary.h); the engine decides which applies.
using RankState = catalog::RankState;
using Verdict = catalog::Verdict;
// Effective source of DEVICE_BUSY for a rank (`device_source` in docs/api.md).
using DeviceSignal = catalog::DeviceSignal;
// Why a data-starved rank waits: storage, preprocessing or unknown (none
// for another verdict); docs/api.md, "Cause".
using Cause = catalog::Cause;

// "active", "silent", "finished"
std::string_view to_string(RankState s);
// "idle", "data-starved", "io-bound", "host-bound", "well-overlapped",
// "waiting-for-peers"
std::string_view to_string(Verdict v);
// "compute-proxy", "cupti", "cuda-events", "nvml"
std::string_view to_string(DeviceSignal d);
// "none", "storage", "preprocessing", "unknown"
std::string_view to_string(Cause c);

// The metrics of one window of one rank (or a job aggregate): the catalog's
// table (catalog/metric_table.h), mapped to these fields in
// engine/metric_fields.h, plus the window and the verdict.
struct WindowMetrics {
  std::int64_t window_ns = 0;  // configured length; 0 = total since start
  std::int64_t start_ns = 0;   // window actually covered, clipped to the rank's lifetime
  std::int64_t end_ns = 0;
  double wall_seconds = 0;
  double compute_seconds = 0;
  double app_io_seconds = 0;
  double io_seconds = 0;
  double fetch_seconds = 0;
  double comm_seconds = 0;
  double unoverlapped_app_io_seconds = 0;   // |APP_IO \ COMPUTE|
  double unoverlapped_io_seconds = 0;       // |IO \ COMPUTE|
  double unoverlapped_compute_seconds = 0;  // |COMPUTE \ (APP_IO ∪ IO)|
  double unoverlapped_all_io_seconds = 0;  // |(APP_IO ∪ IO) \ COMPUTE|, what io-bound is judged on
  double device_busy_seconds = 0;
  double data_stall_seconds = 0;  // |FETCH \ DEVICE_BUSY|
  double overlap_ratio = 0;       // 1 - unoverlapped_app_io / app_io
  double device_idle_ratio = 0;   // 1 - device_busy / wall
  double data_stall_ratio = 0;    // data_stall / wall
  double loader_io_seconds = 0;   // |APP_IO ∩ IO|
  double loader_io_ratio = 0;     // loader_io / app_io
  std::uint64_t steps = 0;
  double step_seconds_p50 = 0;
  double step_seconds_p95 = 0;
  double steps_per_second = 0;
  double samples_per_second = 0;  // NaN when no batch size was reported
  // Bytes and calls per second of the read and write calls that ended in the
  // window (docs/api.md, "I/O volume"); NaN unless io_captured.
  double read_bytes_per_second = 0;
  double write_bytes_per_second = 0;
  double read_ops_per_second = 0;
  double write_ops_per_second = 0;
  // Kernel launches paired with their device work (docs/api.md, "Kernel
  // launches"); the seconds and the ratio are NaN unless launches_captured.
  std::uint64_t launches = 0;
  double launch_seconds = 0;
  double launch_delay_seconds = 0;
  std::uint64_t short_kernels = 0;
  std::uint64_t long_launches = 0;
  std::uint64_t late_launch_starts = 0;
  double launch_idle_ratio = 0;  // launch_seconds / (wall - device busy)
  Verdict verdict = Verdict::kIdle;
  // Time blocked in collectives before their latest arrival (docs/api.md,
  // "peer_wait_seconds"): computed across the job's ranks at tick time, not
  // a catalog metric (no series). NaN for windows longer than the timeline
  // kept (EngineConfig::timeline_ns) and for the totals; 0 in a job alone.
  double peer_wait_seconds = 0;
  // The rank has captured system I/O (IO-class time since its start); for a
  // job, any of its ranks has.
  bool io_captured = false;
  // The rank's launch calls are recorded (a launch paired with its work
  // since its start); for a job, any of its ranks' are.
  bool launches_captured = false;
  Cause cause = Cause::kNone;  // of a data-starved or host-bound verdict
};

// Loss and volume counters; per process, summed per rank, per job and overall.
struct Counters {
  std::uint64_t events_received = 0;
  std::uint64_t batches_received = 0;
  std::uint64_t agent_dropped = 0;    // sum of dropped_since_last
  std::uint64_t lost_batches = 0;     // sequence gaps
  std::uint64_t late_events = 0;      // arrived after their time was final
  std::uint64_t unpaired_events = 0;  // End without Begin, Begin never ended before exit
};

struct ProcessSnapshot {
  std::string host;
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  ProcessRole role = ProcessRole::kMain;
  DeviceSource device_source = DeviceSource::kNone;
  std::string agent_version;
  std::int64_t start_ns = 0;
  std::int64_t last_seen_ns = 0;  // collector clock
  std::int64_t watermark_ns = 0;  // agent clock
  bool finished = false;
  std::uint32_t open_regions = 0;
  Counters counters;
};

// The NVML counters the agent samples once per second per device (agent/gpu:
// cat "gpu_counters" on the device-wide lane). A cross-check shown beside the
// exact device_idle_ratio, never device-busy time: NVML utilization only says
// "some kernel ran during the sample period".
enum class GpuCounter : std::uint8_t {
  kUtilizationPercent = 0,  // nvml.gpu_utilization_percent
  kSmClockMhz = 1,          // nvml.sm_clock_mhz
  kMemoryUsedBytes = 2,     // nvml.memory_used_bytes
  kPowerWatts = 3,          // nvml.power_watts
};
inline constexpr std::size_t kGpuCounterCount = 4;

// "utilization_percent", "sm_clock_mhz", "memory_used_bytes", "power_watts":
// the API's field names (docs/api.md) and Prometheus' stallwatch_gpu_<name>.
std::string_view to_string(GpuCounter c);
// The agent's event name ("nvml.gpu_utilization_percent", ...).
std::string_view agent_counter_name(GpuCounter c);

// One counter of one device. Sample times are the agent's clock.
struct GpuCounterReading {
  double latest = std::numeric_limits<double>::quiet_NaN();  // NaN: never sampled
  std::int64_t latest_ns = 0;
  // Mean of the samples in each of the rank's windows (RankSnapshot::windows
  // order, totals last); NaN for a window without a sample.
  std::vector<double> means;

  bool sampled() const { return !std::isnan(latest); }
};

struct GpuDeviceCounters {
  std::uint32_t device = 0;  // the lane's device index
  std::array<GpuCounterReading, kGpuCounterCount> counters;

  const GpuCounterReading& operator[](GpuCounter c) const {
    return counters[static_cast<std::size_t>(c)];
  }
  std::int64_t latest_ns() const;  // newest sample of any counter
};

struct GpuCounters {
  std::vector<GpuDeviceCounters> devices;  // sorted by device; empty without NVML
  std::uint64_t ignored_samples = 0;       // on devices past the per-rank limit
};

// Cumulative sums over a rank's finalized time [start, horizon) (the
// horizon is the watermark minus the lateness, on the resolution grid): what
// its Prometheus counters are made of. Time before the horizon never changes
// again, so every field only grows while the rank is tracked (a rank
// forgotten and seen again starts from zero); they lag the live windows by
// the lateness. Device busy and data stall count each stretch of time with
// the rank's device signal in force when that stretch was finalized (compute
// stands in before a device signal arrives), so a signal that appears later
// never takes back what was counted.
struct FinalizedTotals {
  std::int64_t horizon_ns = 0;  // end of the finalized time (the start while nothing is final)
  std::int64_t wall_ns = 0;     // horizon - start
  std::int64_t compute_ns = 0;
  std::int64_t app_io_ns = 0;
  std::int64_t io_ns = 0;
  std::int64_t fetch_ns = 0;
  std::int64_t comm_ns = 0;
  std::int64_t unoverlapped_app_io_ns = 0;
  std::int64_t unoverlapped_io_ns = 0;
  std::int64_t unoverlapped_compute_ns = 0;
  std::int64_t unoverlapped_all_io_ns = 0;
  std::int64_t device_busy_ns = 0;
  std::int64_t data_stall_ns = 0;
  std::uint64_t steps = 0;
  double samples = 0;                     // batch size in force at each step, summed
  std::uint64_t step_durations = 0;       // steps that have a previous step
  std::int64_t step_duration_sum_ns = 0;  // their durations, summed
  // Bytes and calls of the read and write calls that ended in finalized time.
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  std::int64_t read_ops = 0;
  std::int64_t write_ops = 0;
  // Steps with a duration at most Snapshot::step_histogram_bounds_ns[i]
  // (cumulative, as Prometheus' `le` buckets); empty without a histogram.
  std::vector<std::uint64_t> step_buckets;
};

// The I/O calls of one file (or of the other files) that ended in a window
// (docs/api.md, "Top files by I/O time").
struct FileIoEntry {
  std::string path;
  std::int64_t io_ns = 0;  // the calls' durations, summed
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  std::int64_t ops = 0;  // calls
  bool operator==(const FileIoEntry&) const = default;
};

// A rank's files by I/O time over one configured window (window_ns 0: since
// the rank's start): at most EngineConfig::top_files_shown (by default
// kTopFilesShown), most time first, and the rest summed in `other`.
struct TopFiles {
  static constexpr std::size_t kTopFilesShown = 10;
  std::int64_t window_ns = 0;
  std::vector<FileIoEntry> files;
  FileIoEntry other;
  bool operator==(const TopFiles&) const = default;
};

// The device work of one name (or of the other names) that ended in a
// window (docs/api.md, "Top kernels by device time").
struct KernelEntry {
  std::string name;
  std::int64_t device_ns = 0;  // the work's durations, summed
  std::int64_t count = 0;
  bool operator==(const KernelEntry&) const = default;
};

// A rank's kernels by device time over one configured window: at most
// kTopKernelsShown, most time first, and the rest summed in `other`.
struct TopKernels {
  static constexpr std::size_t kTopKernelsShown = 10;
  std::int64_t window_ns = 0;
  std::vector<KernelEntry> kernels;
  KernelEntry other;
  bool operator==(const TopKernels&) const = default;
};

struct RankSnapshot {
  std::string job;
  std::int32_t rank = 0;
  // The host of its main process (else of its first one), and that host's
  // clock offset as the job-level views apply it (HostClock::offset_ns).
  std::string host;
  std::int64_t clock_offset_ns = 0;
  RankState state = RankState::kActive;
  DeviceSignal device_source = DeviceSignal::kComputeProxy;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;        // finish time, or the watermark while running
  std::int64_t last_seen_ns = 0;  // collector clock
  std::int64_t watermark_ns = 0;
  std::int64_t epoch = -1;             // latest epoch.start value, -1 before any
  std::int64_t step = -1;              // latest step mark value, -1 before any
  Verdict verdict = Verdict::kIdle;    // verdict of Snapshot::verdict_window_ns
  Cause cause = Cause::kNone;          // its cause
  std::vector<WindowMetrics> windows;  // Snapshot::windows_ns order; totals last
  Counters counters;
  std::vector<ProcessSnapshot> processes;
  GpuCounters gpu_counters;
  FinalizedTotals finalized;
  // Its top files by I/O time, one entry per configured window and the
  // totals (window_ns 0), in windows order.
  std::vector<TopFiles> top_files;
  // Its top kernels by device time, likewise.
  std::vector<TopKernels> top_kernels;
  // Its COMM calls within the timeline span, as the peer matching took them
  // (empty for a rank that never had COMM time). Not served: a collector
  // tree's head matches them across its nodes (summarize_job_with_peers()).
  std::vector<CommCall> comm_calls;
  // What the job's peer matching found of them: its waits for peers, sorted
  // and disjoint, on its clock (summarize_job_with_peers()). Served in its
  // timeline; a head matches them again instead of taking a node's.
  std::vector<PeerWaitSpan> peer_waits;
};

// Mean and max over a job's ranks for one window, plus the straggler. The
// windows' start_ns/end_ns are the span the ranks' windows cover together, on
// the collector's clock (collector_time()).
struct JobWindow {
  std::int64_t window_ns = 0;
  WindowMetrics mean;
  WindowMetrics max;
  std::int32_t straggler_rank =
      -1;  // slowest rank by step time (-1: fewer than 2 ranks with steps)
  Verdict verdict = Verdict::kIdle;  // verdict of the mean
  // The rank(s) holding the job back in this window (docs/api.md, "held_back"):
  // the latest arrivals that caused at least StragglerThresholds::blame_share
  // of the job's waiting for peers, when that waiting costs the other ranks at
  // least StragglerThresholds::cost_ratio of their wall time. Empty: nobody.
  struct HeldBack {
    std::vector<std::int32_t> ranks;  // most blamed first
    std::vector<Verdict> verdicts;    // each named rank's own verdict in this window
    std::vector<Cause> causes;        // ... and the cause of a data-starved one
    // Mean over the other ranks of peer_wait_seconds / wall_seconds.
    double cost_ratio = 0;
    std::int32_t other_ranks = 0;
  } held_back;
};

// A rank's times converted to the collector's clock for views that put ranks
// side by side: `t_ns` (the rank's host clock) minus its host's offset.
inline std::int64_t collector_time(const RankSnapshot& rank, std::int64_t t_ns) {
  return t_ns - rank.clock_offset_ns;
}

struct JobSnapshot {
  std::string job;
  RankState state = RankState::kActive;  // active if any rank is active
  // Earliest rank start, on the collector's clock (collector_time()).
  std::int64_t start_ns = 0;
  std::int64_t last_seen_ns = 0;
  Verdict verdict = Verdict::kIdle;  // job verdict of Snapshot::verdict_window_ns
  Cause cause = Cause::kNone;        // its cause (of the mean)
  std::vector<RankSnapshot> ranks;   // sorted by rank
  std::vector<JobWindow> windows;    // Snapshot::windows_ns order; totals last
  Counters counters;
};

// One host's clock against the collector's, estimated from the batches its
// agents send (docs/design.md, "Clocks"): offset_ns is the largest
// sent_at - received over the last EngineConfig::clock_window_ns of batches,
// so the host's clock minus the collector's, low by at most the smallest
// one-way delay in that window.
struct HostClock {
  std::string host;
  std::int64_t offset_ns = 0;
  std::uint64_t samples = 0;       // batches in the window
  std::int64_t last_batch_ns = 0;  // collector clock
  bool warning = false;            // |offset_ns| >= EngineConfig::clock_warning_ns
};

struct EngineStats {
  std::uint64_t ranks = 0;
  std::uint64_t sources = 0;
  std::uint64_t events_processed = 0;
  std::uint64_t late_events = 0;
  std::uint64_t evicted_ranks = 0;
  // Finished or silent for EngineConfig::forget_after_ns, and dropped; a job
  // is forgotten with its last rank.
  std::uint64_t forgotten_ranks = 0;
  std::uint64_t forgotten_jobs = 0;
  std::uint64_t rejected_sources = 0;  // over max_ranks / max_sources_per_rank
  std::uint64_t approx_memory_bytes = 0;
};

struct Snapshot {
  std::int64_t now_ns = 0;  // collector clock at the tick
  std::uint64_t tick = 0;
  std::vector<std::int64_t> windows_ns;  // configured windows, then 0 (= total)
  std::int64_t verdict_window_ns = 0;    // EngineConfig::verdict_window_ns (0 = total)
  std::size_t verdict_window_index = 0;  // its index in windows_ns
  // Upper bounds of the step-time histogram buckets (EngineConfig), ascending.
  std::vector<std::int64_t> step_histogram_bounds_ns;
  std::vector<JobSnapshot> jobs;  // sorted by job id
  Counters counters;              // over all jobs
  EngineStats stats;
  std::vector<HostClock> hosts;       // sorted by host
  std::int64_t clock_warning_ns = 0;  // EngineConfig::clock_warning_ns

  const JobSnapshot* find_job(std::string_view job) const;
  const HostClock* find_host(std::string_view host) const;
};

}  // namespace stallwatch::collector
