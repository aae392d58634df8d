// SPDX-License-Identifier: MIT
#include "nvml_device_choice.h"

#include <charconv>
#include <string_view>

namespace stallwatch::agent {
namespace {

bool parse_index(std::string_view text, std::uint32_t& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

}  // namespace

NvmlDevicePlan plan_nvml_devices(const char* visible, const char* local_rank) {
  NvmlDevicePlan plan;
  std::uint32_t rank = 0;
  const bool has_rank = local_rank != nullptr && parse_index(trim(local_rank), rank);
  if (visible == nullptr) {
    if (has_rank) {
      plan.devices.push_back(NvmlDeviceChoice{rank, {}});
    } else {
      plan.all = true;
    }
    return plan;
  }
  std::vector<NvmlDeviceChoice> entries;
  std::string_view rest(visible);
  while (!rest.empty() && entries.size() < kMaxNvmlDevices) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    NvmlDeviceChoice choice;
    choice.ordinal = static_cast<std::uint32_t>(entries.size());
    std::uint32_t index = 0;
    if (entry.starts_with("GPU-") || entry.starts_with("MIG-")) {
      choice.uuid = std::string(entry);
    } else if (!parse_index(entry, index)) {
      break;
    }
    entries.push_back(std::move(choice));
  }
  if (!has_rank) {
    plan.devices = std::move(entries);
  } else if (entries.size() == 1) {
    plan.devices.push_back(std::move(entries.front()));
  } else if (rank < entries.size()) {
    plan.devices.push_back(std::move(entries[rank]));
  }
  return plan;
}

}  // namespace stallwatch::agent
