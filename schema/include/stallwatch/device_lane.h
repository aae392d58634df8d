// SPDX-License-Identifier: MIT
#pragma once

// Device lanes: the synthetic thread ids that device work (CUPTI records,
// CUDA-event spans) and device counters (NVML) are recorded under, one per
// (device, stream); the agent's public ABI hands them out as sw_device_lane.
// Layout: bit 31 set, device in bits 24..30, stream in bits 0..23; stream
// 0xffffff is the device-wide lane (NVML counters). Linux thread ids stay
// below 2^22 (PID_MAX_LIMIT), so a lane never equals a real thread, nor the
// main thread's id that the collector keys FETCH on. Streams past 2^24 fold
// onto lower ones (CUPTI and PyTorch number streams from small integers).

#include <cstdint>

namespace stallwatch::wire {

inline constexpr std::uint32_t kLaneBit = 0x80000000u;
inline constexpr std::uint32_t kLaneDeviceMask = 0x7fu;
inline constexpr std::uint32_t kLaneStreamMask = 0xffffffu;
inline constexpr std::uint32_t kDeviceWideStream = kLaneStreamMask;

constexpr std::uint32_t device_lane(std::uint32_t device, std::uint32_t stream) noexcept {
  return kLaneBit | (device & kLaneDeviceMask) << 24 | (stream & kLaneStreamMask);
}
constexpr bool is_device_lane(std::uint32_t tid) noexcept {
  return (tid & kLaneBit) != 0;
}
constexpr std::uint32_t lane_device(std::uint32_t tid) noexcept {
  return (tid >> 24) & kLaneDeviceMask;
}
constexpr std::uint32_t lane_stream(std::uint32_t tid) noexcept {
  return tid & kLaneStreamMask;
}

}  // namespace stallwatch::wire
