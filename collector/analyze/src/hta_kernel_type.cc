// SPDX-License-Identifier: MIT
#include "hta_kernel_type.h"

#include <array>

#include "engine/launch_figures.h"

namespace stallwatch::collector {

namespace {

bool starts_with(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view name, std::string_view part) {
  return name.find(part) != std::string_view::npos;
}

}  // namespace

HtaKernelType hta_kernel_type(std::string_view name) {
  constexpr std::string_view kNccl = "nccl";
  if (starts_with(name, kNccl) && contains(name.substr(kNccl.size()), "Kernel")) {
    return HtaKernelType::kCommunication;
  }
  if (starts_with(name, "Memcpy") || starts_with(name, "Memset") || starts_with(name, "dma")) {
    return HtaKernelType::kMemory;
  }
  if (contains(name, "Memcpy") || contains(name, "Sync")) return HtaKernelType::kOther;
  return HtaKernelType::kComputation;
}

std::string_view hta_kernel_type_name(HtaKernelType type) {
  switch (type) {
    case HtaKernelType::kCommunication:
      return "COMMUNICATION";
    case HtaKernelType::kMemory:
      return "MEMORY";
    case HtaKernelType::kComputation:
      return "COMPUTATION";
    case HtaKernelType::kOther:
      return "OTHER";
  }
  return "OTHER";
}

bool is_hta_launch_name(std::string_view name) {
  return is_launch_call_name(name);
}

}  // namespace stallwatch::collector
