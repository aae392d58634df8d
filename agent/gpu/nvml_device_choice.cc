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

std::vector<NvmlDeviceChoice> choose_nvml_devices(const char* visible, const char* local_rank,
                                                  std::uint32_t count) {
  std::vector<NvmlDeviceChoice> out;
  if (visible != nullptr) {
    std::string_view rest(visible);
    std::uint32_t ordinal = 0;
    while (!rest.empty() && out.size() < kMaxNvmlDevices) {
      const std::size_t comma = rest.find(',');
      const std::string_view entry = trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      NvmlDeviceChoice choice;
      choice.ordinal = ordinal;
      if (entry.starts_with("GPU-")) {
        choice.uuid = std::string(entry);
      } else if (entry.starts_with("MIG-")) {
        ++ordinal;
        continue;
      } else if (!parse_index(entry, choice.index) || choice.index >= count) {
        break;
      }
      out.push_back(std::move(choice));
      ++ordinal;
    }
    return out;
  }
  std::uint32_t rank = 0;
  if (local_rank != nullptr && parse_index(trim(local_rank), rank) && rank < count) {
    out.push_back(NvmlDeviceChoice{rank, rank, {}});
    return out;
  }
  for (std::uint32_t i = 0; i < count && out.size() < kMaxNvmlDevices; ++i) {
    out.push_back(NvmlDeviceChoice{i, i, {}});
  }
  return out;
}

}  // namespace stallwatch::agent
