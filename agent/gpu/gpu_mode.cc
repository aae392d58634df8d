// SPDX-License-Identifier: MIT
#include "gpu_mode.h"

#include <algorithm>

namespace stallwatch::agent {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  return text;
}

std::optional<GpuChoice> parse_choice(std::string_view entry) {
  if (entry == "auto" || entry == "cupti") return GpuChoice::kCupti;
  if (entry == "cuda-events") return GpuChoice::kCudaEvents;
  if (entry == "nvml") return GpuChoice::kNvml;
  if (entry == "none") return GpuChoice::kNone;
  return std::nullopt;
}

}  // namespace

std::optional<GpuMode> parse_gpu_mode(std::string_view text) {
  GpuMode mode;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::optional<GpuChoice> choice = parse_choice(trim(text.substr(0, comma)));
    if (!choice) return std::nullopt;
    mode.preferences.push_back(*choice);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  const auto& p = mode.preferences;
  mode.nvml_alongside = std::find(p.begin(), p.end(), GpuChoice::kNvml) == p.end() &&
                        !(p.size() == 1 && p.front() == GpuChoice::kNone);
  return mode;
}

const char* to_string(GpuChoice choice) noexcept {
  switch (choice) {
    case GpuChoice::kCupti:
      return "cupti";
    case GpuChoice::kCudaEvents:
      return "cuda-events";
    case GpuChoice::kNvml:
      return "nvml";
    case GpuChoice::kNone:
      break;
  }
  return "none";
}

}  // namespace stallwatch::agent
