// SPDX-License-Identifier: MIT
#pragma once

// Counters of everything handed to the ingest decoder, exported as the
// "ingest" object of /api/v1/status and as Prometheus counters.

#include <array>
#include <cstddef>
#include <cstdint>

#include "ingest/frame_error.h"

namespace stallwatch::collector {

// Plain counters; BatchDecoder updates them, the owner copies them out.
// Not thread-safe.
struct IngestStats {
  std::uint64_t frames_received = 0;  // every frame, valid or not
  std::uint64_t bytes_received = 0;   // bytes of every frame, valid or not
  std::uint64_t events_received = 0;  // events of valid frames
  std::array<std::uint64_t, kFrameErrorReasonCount> invalid_frames{};  // by FrameErrorReason

  std::uint64_t& invalid(FrameErrorReason reason) {
    return invalid_frames[static_cast<std::size_t>(reason)];
  }
  std::uint64_t invalid(FrameErrorReason reason) const {
    return invalid_frames[static_cast<std::size_t>(reason)];
  }
  std::uint64_t invalid_total() const;
};

}  // namespace stallwatch::collector
