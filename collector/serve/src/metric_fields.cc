#include "serve/metric_fields.h"

#include <array>

namespace stallwatch::collector {
namespace {

using M = WindowMetrics;

constexpr std::array kFields{
    MetricField{"wall_seconds", "Wall time the window covers, clipped to the rank's lifetime.",
                &M::wall_seconds},
    MetricField{"compute_seconds", "Union of host-side compute regions (COMPUTE) in the window.",
                &M::compute_seconds},
    MetricField{"app_io_seconds",
                "Union of application-level I/O and preprocessing regions (APP_IO).",
                &M::app_io_seconds},
    MetricField{"io_seconds", "Union of system-level I/O regions (POSIX, STDIO).", &M::io_seconds},
    MetricField{"fetch_seconds", "Union of the training loop's waits for the next batch (FETCH).",
                &M::fetch_seconds},
    MetricField{"comm_seconds", "Union of communication regions (COMM).", &M::comm_seconds},
    MetricField{"unoverlapped_app_io_seconds",
                "Application I/O not overlapped by compute: |APP_IO \\ COMPUTE|.",
                &M::unoverlapped_app_io_seconds},
    MetricField{"unoverlapped_io_seconds", "System I/O not overlapped by compute: |IO \\ COMPUTE|.",
                &M::unoverlapped_io_seconds},
    MetricField{"unoverlapped_compute_seconds",
                "Compute not overlapped by any I/O: |COMPUTE \\ (APP_IO u IO)|.",
                &M::unoverlapped_compute_seconds},
    MetricField{"unoverlapped_all_io_seconds",
                "Any I/O not overlapped by compute: |(APP_IO u IO) \\ COMPUTE|.",
                &M::unoverlapped_all_io_seconds},
    MetricField{"device_busy_seconds", "Union of accelerator-busy intervals (DEVICE_BUSY).",
                &M::device_busy_seconds},
    MetricField{"data_stall_seconds",
                "Time the device idles while the loop waits for data: |FETCH \\ DEVICE_BUSY|.",
                &M::data_stall_seconds},
    MetricField{"overlap_ratio", "1 - unoverlapped app I/O / app I/O; NaN without app I/O.",
                &M::overlap_ratio},
    MetricField{"device_idle_ratio", "1 - device busy / wall.", &M::device_idle_ratio},
    MetricField{"data_stall_ratio",
                "Data stall / wall: the share of time the device starves for data.",
                &M::data_stall_ratio},
    MetricField{"steps", "Training steps completed in the window.", nullptr, &M::steps},
    MetricField{"step_seconds_p50", "Median step time in the window.", &M::step_seconds_p50},
    MetricField{"step_seconds_p95", "95th percentile step time in the window.",
                &M::step_seconds_p95},
    MetricField{"steps_per_second", "Training steps per second over the window.",
                &M::steps_per_second},
    MetricField{"samples_per_second", "Samples per second; NaN when no batch size is reported.",
                &M::samples_per_second},
};

}  // namespace

std::span<const MetricField> metric_fields() {
  return kFields;
}

}  // namespace stallwatch::collector
