#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallwatch::agent {

// One device the NVML source samples: found by NVML index or by UUID, and
// recorded on the lane of its CUDA ordinal in this process.
struct NvmlDeviceChoice {
  std::uint32_t ordinal = 0;  // CUDA's device number in this process (lane device)
  std::uint32_t index = 0;    // NVML index, when uuid is empty
  std::string uuid;           // "GPU-...", when CUDA_VISIBLE_DEVICES names one
};

// Which devices this process uses, as well as the environment says: the
// entries of CUDA_VISIBLE_DEVICES (indices or GPU UUIDs, in order, up to the
// first malformed one, as CUDA reads it; MIG instances are skipped), else the
// device of LOCAL_RANK, else every device. `visible` / `local_rank` are the
// variables' values (null when unset); `count` NVML's device count. At most
// kMaxDevices. Pure.
inline constexpr std::size_t kMaxNvmlDevices = 16;
std::vector<NvmlDeviceChoice> choose_nvml_devices(const char* visible, const char* local_rank,
                                                  std::uint32_t count);

}  // namespace stallwatch::agent
