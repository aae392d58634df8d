// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::collector {

// One collective call of one rank, on the rank's clock: a COMM region keyed
// by the step it follows (the value of the latest step mark at or before its
// start, -1 before any) and its ordinal among that step's COMM regions in
// start order. The unit the peer matching (docs/api.md, "peer_wait_seconds")
// works on; a node of a collector tree sends its ranks' calls to its head so
// that the head matches them across nodes.
struct CommCall {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t step = -1;
  std::uint32_t ordinal = 0;
  bool operator==(const CommCall&) const = default;
};

}  // namespace stallwatch::collector
