// SPDX-License-Identifier: MIT
#include "cupti_record_parser.h"

#include <array>
#include <cstddef>
#include <cstring>

#include "cupti_abi.h"

namespace stallwatch::agent {
namespace {

template <typename T>
T field(const std::uint8_t* record, std::size_t offset) noexcept {
  T value;
  std::memcpy(&value, record + offset, sizeof(T));
  return value;
}

// Indexed by CUpti_ActivityMemcpyKind (0 is UNKNOWN).
constexpr std::array<std::string_view, 11> kMemcpyNames{
    "memcpy",      "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH", "memcpy AtoA",
    "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH", "memcpy PtoP"};
static_assert(kMemcpyNames[cupti::kMemcpyHtoD] == "memcpy HtoD");
static_assert(kMemcpyNames[cupti::kMemcpyPtoP] == "memcpy PtoP");

template <typename Prefix>
void read_common(const std::uint8_t* record, ActivityRecord& out) noexcept {
  out.start = field<std::uint64_t>(record, offsetof(Prefix, start));
  out.end = field<std::uint64_t>(record, offsetof(Prefix, end));
  out.device = field<std::uint32_t>(record, offsetof(Prefix, device_id));
  out.stream = field<std::uint32_t>(record, offsetof(Prefix, stream_id));
  out.correlation = field<std::uint32_t>(record, offsetof(Prefix, correlation_id));
}

}  // namespace

std::string_view launch_call_name(std::uint32_t cbid) noexcept {
  switch (cbid) {
    case cupti::kCbidLaunchKernel:
    case cupti::kCbidLaunchKernelPtsz:
    case cupti::kCbidLaunchKernelInternal:
    case cupti::kCbidLaunchKernelInternalPtsz:
      return "cudaLaunchKernel";
    case cupti::kCbidLaunchKernelExC:
    case cupti::kCbidLaunchKernelExCPtsz:
      return "cudaLaunchKernelExC";
    case cupti::kCbidMemcpyAsync:
    case cupti::kCbidMemcpyAsyncPtsz:
      return "cudaMemcpyAsync";
    case cupti::kCbidMemsetAsync:
    case cupti::kCbidMemsetAsyncPtsz:
      return "cudaMemsetAsync";
    default:
      return {};
  }
}

std::string_view driver_launch_call_name(std::uint32_t cbid) noexcept {
  switch (cbid) {
    case cupti::kCbidCuLaunchKernel:
    case cupti::kCbidCuLaunchKernelPtsz:
      return "cuLaunchKernel";
    case cupti::kCbidCuLaunchKernelEx:
    case cupti::kCbidCuLaunchKernelExPtsz:
      return "cuLaunchKernelEx";
    default:
      return {};
  }
}

std::string_view memcpy_name(std::uint8_t copy_kind) noexcept {
  return copy_kind < kMemcpyNames.size() ? kMemcpyNames[copy_kind] : kMemcpyNames[0];
}

bool is_device_work_record(const std::uint8_t* record) noexcept {
  if (record == nullptr) return false;
  const auto kind = field<cupti::ActivityKind>(record, 0);
  return kind == cupti::kActivityConcurrentKernel || kind == cupti::kActivityMemcpy ||
         kind == cupti::kActivityMemset;
}

std::optional<ActivityRecord> parse_cupti_record(const std::uint8_t* record) noexcept {
  if (record == nullptr) return std::nullopt;
  ActivityRecord out;
  switch (field<cupti::ActivityKind>(record, 0)) {
    case cupti::kActivityConcurrentKernel: {
      out.kind = ActivityKind::kKernel;
      read_common<cupti::KernelPrefix>(record, out);
      const auto* name = field<const char*>(record, offsetof(cupti::KernelPrefix, name));
      out.name = name != nullptr && name[0] != '\0' ? std::string_view(name) : "kernel";
      break;
    }
    case cupti::kActivityMemcpy:
      out.kind = ActivityKind::kMemcpy;
      read_common<cupti::MemcpyPrefix>(record, out);
      out.name = memcpy_name(field<std::uint8_t>(record, offsetof(cupti::MemcpyPrefix, copy_kind)));
      break;
    case cupti::kActivityMemset:
      out.kind = ActivityKind::kMemset;
      read_common<cupti::MemsetPrefix>(record, out);
      out.name = "memset";
      break;
    case cupti::kActivityRuntime:
    case cupti::kActivityDriver: {
      out.kind = ActivityKind::kLaunch;
      const auto cbid = field<std::uint32_t>(record, offsetof(cupti::ApiPrefix, cbid));
      out.name = field<cupti::ActivityKind>(record, 0) == cupti::kActivityRuntime
                     ? launch_call_name(cbid)
                     : driver_launch_call_name(cbid);
      if (out.name.empty()) return std::nullopt;
      out.start = field<std::uint64_t>(record, offsetof(cupti::ApiPrefix, start));
      out.end = field<std::uint64_t>(record, offsetof(cupti::ApiPrefix, end));
      out.thread = field<std::uint32_t>(record, offsetof(cupti::ApiPrefix, thread_id));
      out.correlation = field<std::uint32_t>(record, offsetof(cupti::ApiPrefix, correlation_id));
      break;
    }
    default:
      return std::nullopt;
  }
  if ((out.start == 0 && out.end == 0) || out.end < out.start) return std::nullopt;
  return out;
}

}  // namespace stallwatch::agent
