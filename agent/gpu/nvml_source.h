// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_source.h"
#include "nvml_device_choice.h"
#include "nvml_library.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {

// NVML counters at 1 Hz, per device this process uses (nvml_device_choice.h),
// on the device's device-wide lane, cat "gpu_counters" (which the collector
// does not class as device busy): nvml.gpu_utilization_percent,
// nvml.sm_clock_mhz, nvml.memory_used_bytes, nvml.power_watts.
//
// Devices are matched by UUID, never by index: a UUID named in
// CUDA_VISIBLE_DEVICES is looked up at once; a CUDA ordinal is turned into
// its UUID by the CUDA driver once the program has initialized CUDA (the
// source never initializes it), so until then such devices wait (polled each
// sample period). A cross-check shown beside the exact signal, never the
// device-busy truth: NVML's utilization only says that some kernel ran during
// its sample period. A counter a device does not support is not asked again;
// other failed readings are counted. One instance per process, never
// destroyed, driven by GpuManager (start/stop under its lock, poll on its
// pump thread).
class NvmlSource final : public GpuSource {
 public:
  static constexpr std::int64_t kPeriodNs = 1'000'000'000;

  static NvmlSource& instance() noexcept;

  const char* name() const noexcept override { return "nvml"; }
  bool start(std::string& why) noexcept override;
  void poll(std::int64_t now_ns) noexcept override;
  void stop() noexcept override;
  void abandon() noexcept override;

  std::uint32_t devices() const noexcept { return devices_.load(std::memory_order_relaxed); }
  std::uint64_t samples() const noexcept { return samples_.load(std::memory_order_relaxed); }
  std::uint64_t errors() const noexcept { return errors_.load(std::memory_order_relaxed); }

 private:
  enum Counter : std::uint8_t { kUtilization, kSmClock, kMemoryUsed, kPower, kCounters };

  struct Monitored {
    nvml::Device handle = nullptr;
    sw_lane_t lane = 0;
    std::uint8_t unsupported = 0;  // bit per Counter
  };

  NvmlSource() = default;
  bool find_by_uuid(const std::string& uuid, nvml::Device& out) noexcept;
  void monitor(std::uint32_t ordinal, nvml::Device handle);
  // Resolves the devices that needed the CUDA driver, once CUDA is up.
  void resolve_pending() noexcept;
  void record(Monitored& device, Counter counter, nvml::Return rc, double value) noexcept;

  NvmlLibrary lib_;
  bool loaded_ = false;
  bool running_ = false;
  unsigned int count_ = 0;
  std::vector<Monitored> monitored_;
  std::vector<std::uint32_t> pending_;  // CUDA ordinals waiting for the driver
  bool pending_all_ = false;            // every CUDA device, once the driver says how many
  sw_name_t cat_ = 0;
  sw_name_t names_[kCounters] = {};
  std::int64_t next_sample_ns_ = 0;
  std::atomic<std::uint32_t> devices_{0};
  std::atomic<std::uint64_t> samples_{0};
  std::atomic<std::uint64_t> errors_{0};
};

}  // namespace stallwatch::agent
