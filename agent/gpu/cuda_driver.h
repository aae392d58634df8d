// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

namespace stallwatch::agent {

// The CUDA driver (libcuda.so.1) as far as the GPU sources may touch it:
// which CUDA version it supports, whether this process initialized it, and
// the UUIDs of the devices in CUDA's own numbering. It never calls cuInit:
// initializing CUDA is the program's business (a process that forks workers
// which use CUDA must not have initialized it), and before cuInit every
// driver call but cuDriverGetVersion fails without side effects, which is
// what initialized() relies on. Loading the library initializes nothing.
// Process-wide, never destroyed; any thread (resolution takes a mutex once).
class CudaDriver {
 public:
  using Uuid = std::array<std::uint8_t, 16>;

  static CudaDriver& instance() noexcept;

  // Whether libcuda.so.1 could be loaded (the driver is installed).
  bool present() noexcept;
  // The CUDA version it supports (12040 for 12.4), 0 when unknown.
  int version() noexcept;
  // Whether the driver is initialized in this process (cuDeviceGetCount works;
  // false in a child forked after its parent initialized it).
  bool initialized() noexcept;
  // Devices in CUDA's numbering of this process; -1 before initialization.
  int device_count() noexcept;
  // The UUID of CUDA device `ordinal`; false before initialization.
  bool device_uuid(int ordinal, Uuid& out) noexcept;

 private:
  CudaDriver() = default;
  void resolve() noexcept;

  using GetVersionFn = int (*)(int*);
  using GetCountFn = int (*)(int*);
  using DeviceGetFn = int (*)(int*, int);
  using GetUuidFn = int (*)(Uuid*, int);

  std::mutex mutex_;
  bool resolved_ = false;
  GetVersionFn get_version_ = nullptr;
  GetCountFn get_count_ = nullptr;
  DeviceGetFn device_get_ = nullptr;
  GetUuidFn get_uuid_ = nullptr;
};

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form NVML and
// CUDA_VISIBLE_DEVICES use, with `prefix` ("GPU-" or "MIG-").
std::string format_uuid(const CudaDriver::Uuid& uuid, const char* prefix);

}  // namespace stallwatch::agent
