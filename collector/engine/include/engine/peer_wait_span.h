// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::collector {

// A stretch of a rank's collective calls spent waiting for a later peer
// (docs/api.md, "peer_wait_seconds"), on the rank's clock.
struct PeerWaitSpan {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int32_t waiting_for = -1;  // the rank whose late arrival it waited for
  bool operator==(const PeerWaitSpan&) const = default;
};

}  // namespace stallwatch::collector
