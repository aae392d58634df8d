// SPDX-License-Identifier: MIT
// The C ABI of the device activity sources: sw_gpu_start, sw_gpu_stop,
// sw_gpu_get_stats, sw_gpu_describe (the recording calls sw_complete_on and
// sw_counter_f64_on live with the other hot paths in src/api_record.cc).

#include <algorithm>
#include <cstring>

#include "gpu_manager.h"
#include "stallwatch/stallwatch.h"

using stallwatch::agent::GpuManager;

extern "C" {

SW_API int sw_gpu_start(const char* mode) noexcept {
  return GpuManager::instance().start(mode);
}

SW_API int sw_gpu_stop(void) noexcept {
  return GpuManager::instance().stop();
}

SW_API int sw_gpu_get_stats(sw_gpu_stats* out) noexcept {
  if (out == nullptr || out->size < sizeof(uint32_t)) return SW_ERR_INVALID_ARGUMENT;
  sw_gpu_stats stats{};
  stats.size = static_cast<uint32_t>(std::min<size_t>(out->size, sizeof(sw_gpu_stats)));
  GpuManager::instance().fill_stats(stats);
  std::memcpy(out, &stats, stats.size);
  return SW_OK;
}

SW_API size_t sw_gpu_describe(char* buffer, size_t size) noexcept {
  return GpuManager::instance().describe(buffer, size);
}

}  // extern "C"
