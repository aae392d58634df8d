#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// The numeric WindowMetrics fields a series can chart, by name.
const std::vector<std::string_view>& series_metric_list();
std::optional<std::size_t> series_metric_index(std::string_view name);
double series_metric_value(const WindowMetrics& m, std::size_t index);

}  // namespace stallwatch::collector::detail
