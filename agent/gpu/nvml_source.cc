// SPDX-License-Identifier: MIT
#include "nvml_source.h"

#include <cstdlib>
#include <new>
#include <string_view>

#include "cuda_driver.h"
#include "nvml_device_choice.h"
#include "stallwatch/device_lane.h"

namespace stallwatch::agent {
namespace {

constexpr const char* kCounterNames[] = {"nvml.gpu_utilization_percent", "nvml.sm_clock_mhz",
                                         "nvml.memory_used_bytes", "nvml.power_watts"};

}  // namespace

NvmlSource& NvmlSource::instance() noexcept {
  alignas(NvmlSource) static unsigned char storage[sizeof(NvmlSource)];
  static NvmlSource* const source = new (storage) NvmlSource();
  return *source;
}

bool NvmlSource::start(std::string& why) noexcept {
  try {
    if (!loaded_) {
      if (!NvmlLibrary::load(lib_, why)) return false;
      loaded_ = true;
    }
    nvml::Return rc = lib_.init();
    if (rc != nvml::kSuccess) {
      why = "nvmlInit failed: " + lib_.describe(rc);
      return false;
    }
    count_ = 0;
    if (lib_.device_count(&count_) != nvml::kSuccess) count_ = 0;
    monitored_.clear();
    pending_.clear();
    devices_.store(0, std::memory_order_relaxed);
    const NvmlDevicePlan plan =
        plan_nvml_devices(std::getenv("CUDA_VISIBLE_DEVICES"), std::getenv("LOCAL_RANK"));
    pending_all_ = plan.all && count_ > 0;
    for (const NvmlDeviceChoice& choice : plan.devices) {
      if (choice.uuid.empty()) {
        pending_.push_back(choice.ordinal);
        continue;
      }
      nvml::Device handle = nullptr;
      if (find_by_uuid(choice.uuid, handle)) monitor(choice.ordinal, handle);
    }
    if (monitored_.empty() && pending_.empty() && !pending_all_) {
      why = count_ == 0            ? "NVML sees no NVIDIA device"
            : plan.devices.empty() ? "CUDA_VISIBLE_DEVICES leaves this process no device"
                                   : "no NVML device matches CUDA_VISIBLE_DEVICES";
      lib_.shutdown();
      return false;
    }
    cat_ = sw_intern("gpu_counters");
    for (int c = 0; c < kCounters; ++c)
      names_[c] = sw_intern(kCounterNames[c]);
    next_sample_ns_ = 0;
    running_ = true;
    resolve_pending();
    return true;
  } catch (...) {
    why = "out of memory while starting NVML";
    return false;
  }
}

bool NvmlSource::find_by_uuid(const std::string& uuid, nvml::Device& out) noexcept {
  if (lib_.device_by_uuid(uuid.c_str(), &out) == nvml::kSuccess) return true;
  // CUDA also takes an unambiguous abbreviation.
  if (lib_.device_uuid == nullptr) return false;
  int matches = 0;
  for (unsigned int i = 0; i < count_; ++i) {
    nvml::Device handle = nullptr;
    char text[96] = {};
    if (lib_.device_by_index(i, &handle) != nvml::kSuccess ||
        lib_.device_uuid(handle, text, sizeof(text)) != nvml::kSuccess) {
      continue;
    }
    if (std::string_view(text).starts_with(uuid)) {
      out = handle;
      ++matches;
    }
  }
  return matches == 1;
}

void NvmlSource::monitor(std::uint32_t ordinal, nvml::Device handle) {
  if (monitored_.size() >= kMaxNvmlDevices) return;
  Monitored device;
  device.handle = handle;
  device.lane = wire::device_lane(ordinal, wire::kDeviceWideStream);
  monitored_.push_back(device);
  devices_.store(static_cast<std::uint32_t>(monitored_.size()), std::memory_order_relaxed);
}

void NvmlSource::resolve_pending() noexcept {
  if (pending_.empty() && !pending_all_) return;
  CudaDriver& driver = CudaDriver::instance();
  const int cuda_devices = driver.device_count();
  if (cuda_devices < 0) return;  // the program has not initialized CUDA yet
  try {
    if (pending_all_) {
      for (int i = 0; i < cuda_devices; ++i)
        pending_.push_back(static_cast<std::uint32_t>(i));
      pending_all_ = false;
    }
    for (const std::uint32_t ordinal : pending_) {
      CudaDriver::Uuid uuid{};
      if (!driver.device_uuid(static_cast<int>(ordinal), uuid)) continue;
      nvml::Device handle = nullptr;
      if (find_by_uuid(format_uuid(uuid, "GPU-"), handle) ||
          find_by_uuid(format_uuid(uuid, "MIG-"), handle)) {
        monitor(ordinal, handle);
      }
    }
  } catch (...) {
  }
  pending_.clear();
}

void NvmlSource::record(Monitored& device, Counter counter, nvml::Return rc,
                        double value) noexcept {
  const auto bit = static_cast<std::uint8_t>(1u << counter);
  if (rc == nvml::kSuccess) {
    if (sw_counter_f64_on(device.lane, cat_, names_[counter], value) == SW_OK) {
      samples_.fetch_add(1, std::memory_order_relaxed);
    }
  } else if (rc == nvml::kErrorNotSupported) {
    device.unsupported |= bit;
  } else {
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

void NvmlSource::poll(std::int64_t now_ns) noexcept {
  if (!running_ || now_ns < next_sample_ns_) return;
  next_sample_ns_ = now_ns + kPeriodNs;
  resolve_pending();
  for (Monitored& device : monitored_) {
    const auto wanted = [&](Counter counter) {
      return (device.unsupported & (1u << counter)) == 0;
    };
    if (wanted(kUtilization)) {
      nvml::Utilization utilization{};
      const nvml::Return rc = lib_.utilization(device.handle, &utilization);
      record(device, kUtilization, rc, utilization.gpu);
    }
    if (wanted(kSmClock)) {
      unsigned int mhz = 0;
      const nvml::Return rc = lib_.clock_info(device.handle, nvml::kClockSm, &mhz);
      record(device, kSmClock, rc, mhz);
    }
    if (wanted(kMemoryUsed)) {
      nvml::Memory memory{};
      const nvml::Return rc = lib_.memory_info(device.handle, &memory);
      record(device, kMemoryUsed, rc, static_cast<double>(memory.used));
    }
    if (wanted(kPower)) {
      unsigned int milliwatts = 0;
      const nvml::Return rc = lib_.power_usage(device.handle, &milliwatts);
      record(device, kPower, rc, milliwatts / 1000.0);
    }
  }
}

void NvmlSource::stop() noexcept {
  if (!running_) return;
  running_ = false;
  devices_.store(0, std::memory_order_relaxed);
  lib_.shutdown();
}

void NvmlSource::abandon() noexcept {
  running_ = false;
  devices_.store(0, std::memory_order_relaxed);
}

}  // namespace stallwatch::agent
