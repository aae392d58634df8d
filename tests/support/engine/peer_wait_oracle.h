// SPDX-License-Identifier: MIT
#pragma once

// A brute-force model of peer_wait_seconds (docs/api.md), written
// independently of the engine: per rank a flag per microsecond, painted one
// microsecond at a time from the raw COMM regions and step marks of a job's
// ranks, with no maps of keys, merging or sorting of intervals.

#include <cstdint>
#include <vector>

namespace stallwatch::collector::testing {

struct OracleRank {
  struct Call {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
  };
  struct Step {
    std::int64_t ts_ns = 0;
    std::int64_t value = 0;
  };
  std::vector<Call> calls;  // any order
  std::vector<Step> steps;  // any order
  std::int64_t clock_offset_ns = 0;
};

class PeerWaitOracle {
 public:
  // `origin_ns` and `span_ns` (multiples of 1 us) bound every time given.
  PeerWaitOracle(std::vector<OracleRank> ranks, std::int64_t origin_ns, std::int64_t span_ns);
  // Seconds rank `i` waited for peers in [from_ns, to_ns) of its own clock.
  double peer_wait_seconds(std::size_t i, std::int64_t from_ns, std::int64_t to_ns) const;
  // The nanoseconds of waiting caused by rank `i`'s late arrivals whose start
  // lies in [from_ns, to_ns) of its clock.
  std::int64_t blame_ns(std::size_t i, std::int64_t from_ns, std::int64_t to_ns) const;

 private:
  std::vector<OracleRank> ranks_;
  std::int64_t origin_ns_;
  std::vector<std::vector<bool>> waiting_;  // [rank][microsecond]
  struct Caused {
    std::size_t rank = 0;
    std::int64_t start_ns = 0;
    std::int64_t cost_ns = 0;
  };
  std::vector<Caused> caused_;
};

}  // namespace stallwatch::collector::testing
