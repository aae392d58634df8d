// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stallwatch::agent {

enum class GpuChoice : std::uint8_t { kCupti, kCudaEvents, kNvml, kNone };

// A parsed STALLWATCH_GPU / sw_gpu_start mode: the device-busy sources to try
// in order (the first that starts wins; an implicit kNone ends every list),
// and whether NVML counters run alongside the winner.
struct GpuMode {
  std::vector<GpuChoice> preferences;
  bool nvml_alongside = true;
};

// "auto" (= "cupti"), "cupti", "cuda-events", "nvml", "none", or a
// comma-separated list of them ("cupti,cuda-events"); spaces around entries
// are ignored. NVML runs alongside unless the list is "none" or names "nvml"
// itself (then it is a preference). nullopt for anything else or an empty
// entry.
std::optional<GpuMode> parse_gpu_mode(std::string_view text);

// "cupti", "cuda-events", "nvml", "none".
const char* to_string(GpuChoice choice) noexcept;

}  // namespace stallwatch::agent
