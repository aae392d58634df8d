// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace stallwatch::agent {

// The small part of NVML's C API the NVML source calls, declared here
// (nvml.h ships with the driver's development files, which build machines
// rarely have; these entry points have been stable since NVML 5) and
// resolved with dlopen from libnvidia-ml.so.1, or the file named by
// STALLWATCH_NVML_PATH. Never closed. Plain function table; load() is called
// under GpuManager's lock.
namespace nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
using Device = struct DeviceOpaque*;         // nvmlDevice_t
inline constexpr unsigned int kClockSm = 1;  // NVML_CLOCK_SM

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {  // nvmlMemory_t (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace nvml

struct NvmlLibrary {
  nvml::Return (*init)() = nullptr;      // nvmlInit_v2
  nvml::Return (*shutdown)() = nullptr;  // nvmlShutdown
  nvml::Return (*device_count)(unsigned int*) = nullptr;
  nvml::Return (*device_by_index)(unsigned int, nvml::Device*) = nullptr;
  nvml::Return (*device_by_uuid)(const char*, nvml::Device*) = nullptr;
  nvml::Return (*device_uuid)(nvml::Device, char*, unsigned int) = nullptr;  // optional
  nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr;
  nvml::Return (*clock_info)(nvml::Device, unsigned int, unsigned int*) = nullptr;
  nvml::Return (*memory_info)(nvml::Device, nvml::Memory*) = nullptr;
  nvml::Return (*power_usage)(nvml::Device, unsigned int*) = nullptr;  // milliwatts
  const char* (*error_string)(nvml::Return) = nullptr;                 // optional
  std::string path;

  // False with `why` ("libnvidia-ml.so.1 not found") when it cannot load.
  static bool load(NvmlLibrary& out, std::string& why) noexcept;

  std::string describe(nvml::Return result) const;
};

}  // namespace stallwatch::agent
