// SPDX-License-Identifier: MIT
#pragma once

// Why an untrusted frame was rejected. Every invalid frame is counted under
// exactly one reason (IngestStats) and the daemon moves on.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stallwatch::collector {

// In the order FrameValidator checks them.
enum class FrameErrorReason : std::uint8_t {
  kTooLarge = 0,       // more than wire::kMaxFrameBytes
  kBadIdentifier = 1,  // too short for a header, or not "SWTC" (random bytes, another protocol)
  kMalformed = 2,      // fails the FlatBuffers verifier (truncated, corrupt offsets, too deep)
  kVersion = 3,        // another major protocol version
  kSemantic = 4,       // well-formed but breaks a protocol rule (index, kind, time, limit)
};

inline constexpr std::size_t kFrameErrorReasonCount = 5;

// The reason's name as it appears in the API and metrics: "too_large",
// "bad_identifier", "malformed", "version", "semantic".
std::string_view frame_error_reason_name(FrameErrorReason reason);

struct FrameError {
  FrameErrorReason reason = FrameErrorReason::kMalformed;
  std::string detail;  // what and where, e.g. "event 17: name index 40 >= 12 strings"
};

}  // namespace stallwatch::collector
