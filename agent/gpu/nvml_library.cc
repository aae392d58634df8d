// SPDX-License-Identifier: MIT
#include "nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace stallwatch::agent {
namespace {

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr && missing.empty()) missing = symbol;
}

}  // namespace

bool NvmlLibrary::load(NvmlLibrary& out, std::string& why) noexcept {
  try {
    const char* configured = std::getenv("STALLWATCH_NVML_PATH");
    const std::string path =
        configured != nullptr && configured[0] != '\0' ? configured : "libnvidia-ml.so.1";
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      why = path + " not found";
      return false;
    }
    NvmlLibrary lib;
    std::string missing;
    resolve(handle, "nvmlInit_v2", lib.init, missing);
    resolve(handle, "nvmlShutdown", lib.shutdown, missing);
    resolve(handle, "nvmlDeviceGetCount_v2", lib.device_count, missing);
    resolve(handle, "nvmlDeviceGetHandleByIndex_v2", lib.device_by_index, missing);
    resolve(handle, "nvmlDeviceGetHandleByUUID", lib.device_by_uuid, missing);
    resolve(handle, "nvmlDeviceGetUtilizationRates", lib.utilization, missing);
    resolve(handle, "nvmlDeviceGetClockInfo", lib.clock_info, missing);
    resolve(handle, "nvmlDeviceGetMemoryInfo", lib.memory_info, missing);
    resolve(handle, "nvmlDeviceGetPowerUsage", lib.power_usage, missing);
    if (!missing.empty()) {
      why = path + " lacks " + missing;
      return false;
    }
    std::string optional;
    resolve(handle, "nvmlErrorString", lib.error_string, optional);
    resolve(handle, "nvmlDeviceGetUUID", lib.device_uuid, optional);
    lib.path = path;
    out = std::move(lib);
    return true;
  } catch (...) {
    why = "out of memory while loading NVML";
    return false;
  }
}

std::string NvmlLibrary::describe(nvml::Return result) const {
  const char* text = error_string != nullptr ? error_string(result) : nullptr;
  return text != nullptr ? std::string(text) : "NVML error " + std::to_string(result);
}

}  // namespace stallwatch::agent
