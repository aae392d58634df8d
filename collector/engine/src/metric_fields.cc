// SPDX-License-Identifier: MIT
#include "engine/metric_fields.h"

#include <array>
#include <cstddef>

namespace stallwatch::collector {
namespace {

using M = WindowMetrics;

// find_metric(name).value() is not a constant when the catalog has no metric
// of that name: the table below then fails to compile.
constexpr MetricField make_field(std::string_view name, double M::*value) {
  return MetricField{catalog::find_metric(name).value(), value, nullptr};
}
constexpr MetricField make_field(std::string_view name, std::uint64_t M::*count) {
  return MetricField{catalog::find_metric(name).value(), nullptr, count};
}

// The catalog's name of a metric is the field's name.
#define SW_METRIC_FIELD(field) make_field(#field, &M::field)

constexpr std::array<MetricField, catalog::kMetricCount> kFields{
    SW_METRIC_FIELD(wall_seconds),
    SW_METRIC_FIELD(compute_seconds),
    SW_METRIC_FIELD(app_io_seconds),
    SW_METRIC_FIELD(io_seconds),
    SW_METRIC_FIELD(fetch_seconds),
    SW_METRIC_FIELD(comm_seconds),
    SW_METRIC_FIELD(unoverlapped_app_io_seconds),
    SW_METRIC_FIELD(unoverlapped_io_seconds),
    SW_METRIC_FIELD(unoverlapped_compute_seconds),
    SW_METRIC_FIELD(unoverlapped_all_io_seconds),
    SW_METRIC_FIELD(device_busy_seconds),
    SW_METRIC_FIELD(data_stall_seconds),
    SW_METRIC_FIELD(overlap_ratio),
    SW_METRIC_FIELD(device_idle_ratio),
    SW_METRIC_FIELD(data_stall_ratio),
    SW_METRIC_FIELD(loader_io_seconds),
    SW_METRIC_FIELD(loader_io_ratio),
    SW_METRIC_FIELD(steps),
    SW_METRIC_FIELD(step_seconds_p50),
    SW_METRIC_FIELD(step_seconds_p95),
    SW_METRIC_FIELD(steps_per_second),
    SW_METRIC_FIELD(samples_per_second),
    SW_METRIC_FIELD(read_bytes_per_second),
    SW_METRIC_FIELD(write_bytes_per_second),
    SW_METRIC_FIELD(read_ops_per_second),
    SW_METRIC_FIELD(write_ops_per_second),
    SW_METRIC_FIELD(launches),
    SW_METRIC_FIELD(launch_seconds),
    SW_METRIC_FIELD(launch_delay_seconds),
    SW_METRIC_FIELD(short_kernels),
    SW_METRIC_FIELD(long_launches),
    SW_METRIC_FIELD(late_launch_starts),
    SW_METRIC_FIELD(launch_idle_ratio),
};

#undef SW_METRIC_FIELD

// Every catalog metric once, in the catalog's order (a metric missing here
// leaves a default entry at its index), read from one field, an integer
// field exactly when the catalog calls it a count.
constexpr bool covers_the_catalog() {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    const MetricField& f = kFields[i];
    if (catalog::index_of(f.id) != i) return false;
    if ((f.value == nullptr) == (f.count == nullptr)) return false;
    if ((f.count != nullptr) != (catalog::info(f.id).kind == catalog::MetricKind::kCount)) {
      return false;
    }
  }
  return true;
}
static_assert(covers_the_catalog(),
              "kFields must map every metric of catalog/metric_table.h, in its order");

// The number of fields an aggregate is initialized with: the most braced
// initializers it accepts.
struct AnyField {
  template <class T>
  constexpr operator T() const noexcept {
    return T{};
  }
};
template <class T, class... Fields>
constexpr std::size_t aggregate_fields() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return aggregate_fields<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

// window_ns, start_ns, end_ns, verdict, io_captured, launches_captured,
// cause and peer_wait_seconds (computed across ranks, see WindowMetrics) are
// not catalog metrics.
constexpr std::size_t kNonMetricFields = 8;
static_assert(aggregate_fields<WindowMetrics>() == catalog::kMetricCount + kNonMetricFields,
              "a WindowMetrics field that is not a metric of catalog/metric_table.h: add it "
              "there and to kFields (or count it among the non-metric fields)");

}  // namespace

std::span<const MetricField, catalog::kMetricCount> metric_fields() {
  return kFields;
}

}  // namespace stallwatch::collector
