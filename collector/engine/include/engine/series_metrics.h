// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "catalog/metric_table.h"
#include "engine/metric_fields.h"
#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// A metric a series can chart (any metric of the catalog), by its index in
// catalog::kMetrics.
inline std::optional<std::size_t> series_metric_index(std::string_view name) {
  const auto id = catalog::find_metric(name);
  if (!id) return std::nullopt;
  return catalog::index_of(*id);
}

inline double series_metric_value(const WindowMetrics& m, std::size_t index) {
  return metric_fields()[index].get(m);
}

}  // namespace stallwatch::collector::detail
