#include "nvml_source.h"

#include <cstdlib>
#include <new>

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
    unsigned int count = 0;
    rc = lib_.device_count(&count);
    if (rc != nvml::kSuccess) count = 0;
    monitored_.clear();
    for (const NvmlDeviceChoice& choice : choose_nvml_devices(std::getenv("CUDA_VISIBLE_DEVICES"),
                                                              std::getenv("LOCAL_RANK"), count)) {
      Monitored device;
      rc = choice.uuid.empty() ? lib_.device_by_index(choice.index, &device.handle)
                               : lib_.device_by_uuid(choice.uuid.c_str(), &device.handle);
      if (rc != nvml::kSuccess) continue;
      device.lane = wire::device_lane(choice.ordinal, wire::kDeviceWideStream);
      monitored_.push_back(device);
    }
    if (monitored_.empty()) {
      why =
          count == 0 ? "NVML sees no NVIDIA device" : "no NVML device matches CUDA_VISIBLE_DEVICES";
      lib_.shutdown();
      return false;
    }
    cat_ = sw_intern("gpu_counters");
    for (int c = 0; c < kCounters; ++c)
      names_[c] = sw_intern(kCounterNames[c]);
    next_sample_ns_ = 0;
    devices_.store(static_cast<std::uint32_t>(monitored_.size()), std::memory_order_relaxed);
    running_ = true;
    return true;
  } catch (...) {
    why = "out of memory while starting NVML";
    return false;
  }
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
