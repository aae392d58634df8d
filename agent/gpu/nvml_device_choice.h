// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallwatch::agent {

// One device this process uses: its CUDA ordinal in this process (the lane's
// device) and, when CUDA_VISIBLE_DEVICES names it by UUID, that UUID
// ("GPU-..." or "MIG-...", possibly abbreviated as CUDA allows). Without a
// UUID only the CUDA driver can say which physical device the ordinal is:
// CUDA numbers devices fastest first by default, NVML by PCI bus, so an
// index is never an NVML index.
struct NvmlDeviceChoice {
  std::uint32_t ordinal = 0;
  std::string uuid;
};

// The devices whose counters this process reports, from the environment:
// CUDA_VISIBLE_DEVICES entries (indices or UUIDs, in order, up to the first
// malformed one, as CUDA reads them); with LOCAL_RANK set, only the rank's
// own device (entry LOCAL_RANK, or the only entry when each rank sees one),
// so that the ranks of a node do not each report every GPU. `all` when
// neither variable is set: every device CUDA shows. At most kMaxNvmlDevices.
// Pure.
inline constexpr std::size_t kMaxNvmlDevices = 16;

struct NvmlDevicePlan {
  std::vector<NvmlDeviceChoice> devices;
  bool all = false;
};

NvmlDevicePlan plan_nvml_devices(const char* visible, const char* local_rank);

}  // namespace stallwatch::agent
