// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "catalog/metric_table.h"
#include "engine/snapshot.h"

namespace stallwatch::collector {

// Where each metric of the catalog (catalog/metric_table.h) lives in
// WindowMetrics: one entry per catalog metric, in the catalog's order, so
// metric_fields()[catalog::index_of(id)] is id's. The JSON and Prometheus
// writers, /series and alert rules read WindowMetrics through it. The table
// (src/metric_fields.cc) is checked when it compiles: each entry names the
// field spelled like its catalog name, counts are the integer fields, and
// every field of WindowMetrics but the window and the verdict is in the
// catalog. Immutable; callable from any thread.
struct MetricField {
  catalog::Metric id{};
  double WindowMetrics::*value = nullptr;         // seconds, ratios, rates
  std::uint64_t WindowMetrics::*count = nullptr;  // counts (written as integers)

  const catalog::MetricInfo& info() const { return catalog::info(id); }
  std::string_view name() const { return info().name; }
  std::string_view help() const { return info().help; }
  bool is_count() const { return count != nullptr; }
  double get(const WindowMetrics& m) const {
    return count != nullptr ? static_cast<double>(m.*count) : m.*value;
  }
};

std::span<const MetricField, catalog::kMetricCount> metric_fields();

inline const MetricField& metric_field(catalog::Metric id) {
  return metric_fields()[catalog::index_of(id)];
}

inline double metric_value(const WindowMetrics& m, catalog::Metric id) {
  return metric_field(id).get(m);
}

}  // namespace stallwatch::collector
