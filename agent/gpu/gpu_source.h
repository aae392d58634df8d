// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace stallwatch::agent {

// A device activity source (the extension point of agent/gpu): CUPTI, NVML.
// GpuManager drives every source under its lock: start() once per session,
// poll() from its pump thread every kPollPeriodMs while running, then stop(),
// or abandon() where calling into the source's library is no longer safe (a
// forked child, process exit). Sources are created once and never destroyed:
// their libraries may call back into them at any time. Nothing here throws.
class GpuSource {
 public:
  static constexpr int kPollPeriodMs = 100;

  virtual ~GpuSource() = default;

  // The device_source name ("cupti", "nvml").
  virtual const char* name() const noexcept = 0;
  // True when running afterwards; otherwise false, with `why` set to one
  // phrase an operator understands ("libcupti.so not found") and nothing left
  // enabled.
  virtual bool start(std::string& why) noexcept = 0;
  // Pump thread; `now_ns` on the sw_now_ns clock.
  virtual void poll(std::int64_t now_ns) noexcept = 0;
  // Delivers what is pending, then releases the library's resources.
  virtual void stop() noexcept = 0;
  // Forgets the session without calling the library.
  virtual void abandon() noexcept = 0;
};

}  // namespace stallwatch::agent
