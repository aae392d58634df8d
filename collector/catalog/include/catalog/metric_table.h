// SPDX-License-Identifier: MIT
#pragma once

// The window metrics stallwatch computes, each once: the name the API, the
// Prometheus exporter (stallwatch_<name>), /series and alert rules use, its
// kind, and one line of help. The engine maps every entry to its
// WindowMetrics field (engine/metric_fields.h, checked at compile time);
// the terminal dashboard keeps a value per entry. Order: the API's.
//
// Header-only and constexpr; no dependencies.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stallwatch::catalog {

enum class MetricKind : std::uint8_t {
  kSeconds,  // a length of time, in seconds
  kRatio,    // a share in [0, 1]; NaN (JSON null) when undefined
  kCount,    // a whole number (written as an integer)
  kRate,     // per second
};

// "seconds", "ratio", "count", "rate"
constexpr std::string_view to_string(MetricKind k) {
  switch (k) {
    case MetricKind::kSeconds:
      return "seconds";
    case MetricKind::kRatio:
      return "ratio";
    case MetricKind::kCount:
      return "count";
    case MetricKind::kRate:
      return "rate";
  }
  return "seconds";
}

// A metric's id is its index in kMetrics.
enum class Metric : std::uint8_t {
  kWallSeconds,
  kComputeSeconds,
  kAppIoSeconds,
  kIoSeconds,
  kFetchSeconds,
  kCommSeconds,
  kUnoverlappedAppIoSeconds,
  kUnoverlappedIoSeconds,
  kUnoverlappedComputeSeconds,
  kUnoverlappedAllIoSeconds,
  kDeviceBusySeconds,
  kDataStallSeconds,
  kOverlapRatio,
  kDeviceIdleRatio,
  kDataStallRatio,
  kLoaderIoSeconds,
  kLoaderIoRatio,
  kSteps,
  kStepSecondsP50,
  kStepSecondsP95,
  kStepsPerSecond,
  kSamplesPerSecond,
  kReadBytesPerSecond,
  kWriteBytesPerSecond,
  kReadOpsPerSecond,
  kWriteOpsPerSecond,
  kLaunches,
  kLaunchSeconds,
  kLaunchDelaySeconds,
  kShortKernels,
  kLongLaunches,
  kLateLaunchStarts,
  kLaunchIdleRatio,
};

struct MetricInfo {
  Metric id;
  std::string_view name;
  MetricKind kind;
  std::string_view help;
};

inline constexpr std::array kMetrics{
    MetricInfo{Metric::kWallSeconds, "wall_seconds", MetricKind::kSeconds,
               "Wall time the window covers, clipped to the rank's lifetime."},
    MetricInfo{Metric::kComputeSeconds, "compute_seconds", MetricKind::kSeconds,
               "Union of host-side compute regions (COMPUTE) in the window."},
    MetricInfo{Metric::kAppIoSeconds, "app_io_seconds", MetricKind::kSeconds,
               "Union of application-level I/O and preprocessing regions (APP_IO)."},
    MetricInfo{Metric::kIoSeconds, "io_seconds", MetricKind::kSeconds,
               "Union of system-level I/O regions (POSIX, STDIO)."},
    MetricInfo{Metric::kFetchSeconds, "fetch_seconds", MetricKind::kSeconds,
               "Union of the training loop's waits for the next batch (FETCH)."},
    MetricInfo{Metric::kCommSeconds, "comm_seconds", MetricKind::kSeconds,
               "Union of communication regions (COMM)."},
    MetricInfo{Metric::kUnoverlappedAppIoSeconds, "unoverlapped_app_io_seconds",
               MetricKind::kSeconds,
               "Application I/O not overlapped by compute: |APP_IO \\ COMPUTE|."},
    MetricInfo{Metric::kUnoverlappedIoSeconds, "unoverlapped_io_seconds", MetricKind::kSeconds,
               "System I/O not overlapped by compute: |IO \\ COMPUTE|."},
    MetricInfo{Metric::kUnoverlappedComputeSeconds, "unoverlapped_compute_seconds",
               MetricKind::kSeconds,
               "Compute not overlapped by any I/O: |COMPUTE \\ (APP_IO u IO)|."},
    MetricInfo{Metric::kUnoverlappedAllIoSeconds, "unoverlapped_all_io_seconds",
               MetricKind::kSeconds,
               "Any I/O not overlapped by compute: |(APP_IO u IO) \\ COMPUTE|."},
    MetricInfo{Metric::kDeviceBusySeconds, "device_busy_seconds", MetricKind::kSeconds,
               "Union of accelerator-busy intervals (DEVICE_BUSY)."},
    MetricInfo{Metric::kDataStallSeconds, "data_stall_seconds", MetricKind::kSeconds,
               "Time the device idles while the loop waits for data: |FETCH \\ DEVICE_BUSY|."},
    MetricInfo{Metric::kOverlapRatio, "overlap_ratio", MetricKind::kRatio,
               "1 - unoverlapped app I/O / app I/O; NaN without app I/O."},
    MetricInfo{Metric::kDeviceIdleRatio, "device_idle_ratio", MetricKind::kRatio,
               "1 - device busy / wall."},
    MetricInfo{Metric::kDataStallRatio, "data_stall_ratio", MetricKind::kRatio,
               "Data stall / wall: the share of time the device starves for data."},
    MetricInfo{Metric::kLoaderIoSeconds, "loader_io_seconds", MetricKind::kSeconds,
               "Data loading inside system I/O: |APP_IO n IO|."},
    MetricInfo{Metric::kLoaderIoRatio, "loader_io_ratio", MetricKind::kRatio,
               "Loader I/O / app I/O: the share of data loading spent inside system I/O; NaN "
               "without app I/O."},
    MetricInfo{Metric::kSteps, "steps", MetricKind::kCount,
               "Training steps completed in the window."},
    MetricInfo{Metric::kStepSecondsP50, "step_seconds_p50", MetricKind::kSeconds,
               "Median step time in the window."},
    MetricInfo{Metric::kStepSecondsP95, "step_seconds_p95", MetricKind::kSeconds,
               "95th percentile step time in the window."},
    MetricInfo{Metric::kStepsPerSecond, "steps_per_second", MetricKind::kRate,
               "Training steps per second over the window."},
    MetricInfo{Metric::kSamplesPerSecond, "samples_per_second", MetricKind::kRate,
               "Samples per second; NaN when no batch size is reported."},
    MetricInfo{Metric::kReadBytesPerSecond, "read_bytes_per_second", MetricKind::kRate,
               "Bytes per second returned by captured read calls (POSIX, STDIO) that ended in "
               "the window; NaN without captured I/O."},
    MetricInfo{Metric::kWriteBytesPerSecond, "write_bytes_per_second", MetricKind::kRate,
               "Bytes per second written by captured write calls (POSIX, STDIO) that ended in "
               "the window; NaN without captured I/O."},
    MetricInfo{Metric::kReadOpsPerSecond, "read_ops_per_second", MetricKind::kRate,
               "Captured read calls per second that ended in the window; NaN without captured "
               "I/O."},
    MetricInfo{Metric::kWriteOpsPerSecond, "write_ops_per_second", MetricKind::kRate,
               "Captured write calls per second that ended in the window; NaN without captured "
               "I/O."},
    MetricInfo{Metric::kLaunches, "launches", MetricKind::kCount,
               "Kernel launch calls (CUDA runtime) paired with the device work they launched, "
               "ending in the window."},
    MetricInfo{Metric::kLaunchSeconds, "launch_seconds", MetricKind::kSeconds,
               "Time the host spent in those launch calls, summed; NaN without launch records."},
    MetricInfo{Metric::kLaunchDelaySeconds, "launch_delay_seconds", MetricKind::kSeconds,
               "From each launch call's end to its work's start, summed; NaN without launch "
               "records."},
    MetricInfo{Metric::kShortKernels, "short_kernels", MetricKind::kCount,
               "Launches whose work ran shorter than a launch call of at most 50 us (HTA)."},
    MetricInfo{Metric::kLongLaunches, "long_launches", MetricKind::kCount,
               "Launch calls longer than 50 us (HTA)."},
    MetricInfo{Metric::kLateLaunchStarts, "late_launch_starts", MetricKind::kCount,
               "Launches whose work started more than 100 us after the call returned (HTA)."},
    MetricInfo{Metric::kLaunchIdleRatio, "launch_idle_ratio", MetricKind::kRatio,
               "Launch seconds / device idle seconds (wall - device busy): how much of the "
               "device's idle time the host spent launching; NaN without launch records."},
};

inline constexpr std::size_t kMetricCount = kMetrics.size();

constexpr std::size_t index_of(Metric m) {
  return static_cast<std::size_t>(m);
}

constexpr const MetricInfo& info(Metric m) {
  return kMetrics[index_of(m)];
}

// The metric called `name`, if any.
constexpr std::optional<Metric> find_metric(std::string_view name) {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return m.id;
  }
  return std::nullopt;
}

namespace detail {
constexpr bool ids_are_indices() {
  for (std::size_t i = 0; i < kMetrics.size(); ++i) {
    if (index_of(kMetrics[i].id) != i) return false;
  }
  return true;
}
constexpr bool names_are_unique() {
  for (std::size_t i = 0; i < kMetrics.size(); ++i) {
    for (std::size_t j = i + 1; j < kMetrics.size(); ++j) {
      if (kMetrics[i].name == kMetrics[j].name) return false;
    }
  }
  return true;
}
}  // namespace detail

static_assert(detail::ids_are_indices(), "kMetrics must list every Metric once, in enum order");
static_assert(detail::names_are_unique(), "two metrics share a name");

}  // namespace stallwatch::catalog
