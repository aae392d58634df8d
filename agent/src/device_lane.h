#pragma once

#include <cstdint>

namespace stallwatch::agent {

// Lanes: the synthetic thread ids that device work is recorded under, one per
// (device, stream) (public ABI: sw_device_lane). Layout: bit 31 set, device in
// bits 24..30, stream in bits 0..23. Linux thread ids stay below 2^22
// (PID_MAX_LIMIT), so a lane never equals a real thread, nor the main
// thread's id that the collector keys FETCH on. Streams past 2^24 fold onto
// lower ones (CUPTI and PyTorch number streams from small integers).
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

}  // namespace stallwatch::agent
