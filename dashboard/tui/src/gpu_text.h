// SPDX-License-Identifier: MIT
#pragma once

// A rank's NVML readings (docs/api.md GpuCounters) as the terminal dashboard
// shows them, in the same words as the web page
// (dashboard/web/js/gpu_counters.js). NVML utilization is a cross-check beside
// the exact device idle figure, never device-busy time. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "api_model.h"

namespace stallwatch::tui {

inline constexpr std::string_view kNvmlNote =
    "NVML counts a 1 s sample as busy when some kernel ran: a cross-check, not device-busy time";

// Mean NVML utilization (percent) of the rank's devices over `window`; empty
// when no device has a sample in it.
std::optional<double> nvml_utilization(const RankRow& rank, const std::string& window);

// "93 %" (an NVML percent, not a ratio), or "—".
std::string format_nvml_percent(std::optional<double> percent);

// "NVML util 93 % (60 s mean)"; empty when the rank reports no NVML counters.
std::string nvml_util_text(const RankRow& rank, const std::string& window);

// "GPU 0: 93 % now, 92 % 60 s mean · SM 1410 MHz · 8.0 GiB · 250 W · now",
// leaving out readings the device does not report.
std::string gpu_device_line(const GpuCounters& gpu, const std::string& window);

}  // namespace stallwatch::tui
