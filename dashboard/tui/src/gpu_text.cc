// SPDX-License-Identifier: MIT
#include "gpu_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "format.h"

namespace stallwatch::tui {
namespace {

bool present(const std::optional<double>& v) {
  return v.has_value() && std::isfinite(*v);
}

std::string whole(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

std::optional<double> nvml_utilization(const RankRow& rank, const std::string& window) {
  double sum = 0;
  int n = 0;
  for (const GpuCounters& g : rank.gpu_counters) {
    const std::optional<double> mean = g.utilization_percent.mean_of(window);
    if (!present(mean)) continue;
    sum += *mean;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::string format_nvml_percent(std::optional<double> percent) {
  return present(percent) ? whole(*percent) + " %" : std::string(kDash);
}

std::string nvml_util_text(const RankRow& rank, const std::string& window) {
  if (rank.gpu_counters.empty()) return {};
  return "NVML util " + format_nvml_percent(nvml_utilization(rank, window)) + " (" +
         window_label(window) + " mean)";
}

std::string gpu_device_line(const GpuCounters& g, const std::string& window) {
  std::string line = "GPU " + std::to_string(g.device) + ": " +
                     format_nvml_percent(g.utilization_percent.latest) + " now, " +
                     format_nvml_percent(g.utilization_percent.mean_of(window)) + " " +
                     window_label(window) + " mean";
  if (present(g.sm_clock_mhz.latest)) line += " · SM " + whole(*g.sm_clock_mhz.latest) + " MHz";
  if (present(g.memory_used_bytes.latest) && *g.memory_used_bytes.latest >= 0) {
    line += " · " + format_bytes(static_cast<std::uint64_t>(*g.memory_used_bytes.latest));
  }
  if (present(g.power_watts.latest)) line += " · " + whole(*g.power_watts.latest) + " W";
  if (present(g.age_seconds)) {
    line += *g.age_seconds < 1 ? " · now" : " · " + whole(std::floor(*g.age_seconds)) + " s ago";
  }
  return line;
}

}  // namespace stallwatch::tui
