#include "engine/series_metrics.h"

#include <array>
#include <utility>

namespace stallwatch::collector::detail {
namespace {

using Getter = double (*)(const WindowMetrics&);

#define SW_SERIES_FIELD(field)                                     \
  std::pair<std::string_view, Getter> {                            \
#field, [](const WindowMetrics& m) { return double(m.field); } \
  }

const std::array kFields = {
    SW_SERIES_FIELD(wall_seconds),
    SW_SERIES_FIELD(compute_seconds),
    SW_SERIES_FIELD(app_io_seconds),
    SW_SERIES_FIELD(io_seconds),
    SW_SERIES_FIELD(fetch_seconds),
    SW_SERIES_FIELD(comm_seconds),
    SW_SERIES_FIELD(unoverlapped_app_io_seconds),
    SW_SERIES_FIELD(unoverlapped_io_seconds),
    SW_SERIES_FIELD(unoverlapped_compute_seconds),
    SW_SERIES_FIELD(unoverlapped_all_io_seconds),
    SW_SERIES_FIELD(device_busy_seconds),
    SW_SERIES_FIELD(data_stall_seconds),
    SW_SERIES_FIELD(overlap_ratio),
    SW_SERIES_FIELD(device_idle_ratio),
    SW_SERIES_FIELD(data_stall_ratio),
    SW_SERIES_FIELD(steps),
    SW_SERIES_FIELD(step_seconds_p50),
    SW_SERIES_FIELD(step_seconds_p95),
    SW_SERIES_FIELD(steps_per_second),
    SW_SERIES_FIELD(samples_per_second),
};

#undef SW_SERIES_FIELD

}  // namespace

const std::vector<std::string_view>& series_metric_list() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& f : kFields)
      out.push_back(f.first);
    return out;
  }();
  return names;
}

std::optional<std::size_t> series_metric_index(std::string_view name) {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (kFields[i].first == name) return i;
  }
  return std::nullopt;
}

double series_metric_value(const WindowMetrics& m, std::size_t index) {
  return kFields[index].second(m);
}

}  // namespace stallwatch::collector::detail
