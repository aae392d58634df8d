// SPDX-License-Identifier: MIT
#pragma once

// The wire protocol version shared by the agent and the collector.
// Batch.protocol_version = kProtocolMajor << 16 | kProtocolMinor. A receiver
// accepts any minor version of its own major version and rejects the rest.

#include <cstddef>
#include <cstdint>

namespace stallwatch::wire {

inline constexpr std::uint32_t kProtocolMajor = 1;
inline constexpr std::uint32_t kProtocolMinor = 0;
inline constexpr std::uint32_t kProtocolVersion = kProtocolMajor << 16 | kProtocolMinor;

constexpr std::uint32_t protocol_major(std::uint32_t version) {
  return version >> 16;
}
constexpr std::uint32_t protocol_minor(std::uint32_t version) {
  return version & 0xffffu;
}

// Limits both sides agree on. The agent never builds a batch past them; the
// collector rejects frames that exceed them.
inline constexpr std::size_t kMaxFrameBytes = 4u << 20;
inline constexpr std::size_t kMaxEventsPerBatch = 65536;
inline constexpr std::size_t kMaxStringsPerBatch = 65535;  // Event.cat/name are uint16
inline constexpr std::size_t kMaxStringBytes = 1024;

// The value on a region's END that marks the wait which ended its loop (the
// iterator ran out): the time is real waiting, but it is no fetch of an item
// (pydftracer records no event for it). The agent's SW_END_LOOP_EXHAUSTED.
inline constexpr std::int64_t kEndLoopExhausted = 1;

// Default endpoints.
inline constexpr const char* kDefaultTcpEndpoint = "tcp://127.0.0.1:5557";

}  // namespace stallwatch::wire
