#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "engine/snapshot.h"

namespace stallwatch::collector {

// One numeric field of WindowMetrics (docs/design.md, "Metrics"), in the order the API lists
// them. The JSON writer and the Prometheus exporter both walk this table, so
// a metric added to the engine is added here once.
struct MetricField {
  std::string_view name;  // the JSON field name; Prometheus: stallwatch_<name>
  std::string_view help;
  double WindowMetrics::*value = nullptr;         // seconds, ratios, rates
  std::uint64_t WindowMetrics::*count = nullptr;  // counts (written as integers)

  bool is_count() const { return count != nullptr; }
  double get(const WindowMetrics& m) const {
    return count != nullptr ? static_cast<double>(m.*count) : m.*value;
  }
};

std::span<const MetricField> metric_fields();

}  // namespace stallwatch::collector
