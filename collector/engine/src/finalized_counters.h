// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cell_data.h"
#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// A rank's cumulative counters over its finalized time (FinalizedTotals):
// the totals accumulator's sums (every finalized cell and the bulk), which
// only grow, plus device busy and data stall, which depend on the device
// signal. Those two are counted per horizon move: the time a move finalizes
// counts DEVICE_BUSY and FETCH \ DEVICE_BUSY when the rank has a device
// signal at that moment, else COMPUTE and FETCH \ COMPUTE (the proxy), so a
// signal that appears or goes later never changes what was counted.
//
// Single-threaded; owned by one RankTracker, which calls advance() after
// every horizon move and describe() for its snapshot. Holds no history: a
// few integers per rank.
class FinalizedCounters {
 public:
  // The finalized sums are now `totals`; the time finalized since the
  // previous call counts device busy with the real signal when
  // `real_device`.
  void advance(const Sums& totals, bool real_device);
  // The counters for a rank started at `start_ns` whose finalized horizon is
  // `horizon_ns` (kNoTime: none yet) and whose finalized sums are `totals`
  // (those of the last advance()). `end_ns` is a finished rank's end
  // (kNoTime while it runs): wall time stops there even when the horizon
  // has passed it. `step_buckets` holds the finalized step durations per
  // histogram bucket (not cumulative).
  FinalizedTotals describe(const Sums& totals, std::int64_t start_ns, std::int64_t horizon_ns,
                           std::int64_t end_ns,
                           const std::vector<std::uint64_t>& step_buckets) const;

 private:
  std::int64_t seen_device_ = 0;  // the totals' DEVICE_BUSY at the last advance()
  std::int64_t seen_compute_ = 0;
  std::int64_t seen_fetch_not_device_ = 0;
  std::int64_t seen_fetch_not_compute_ = 0;
  std::int64_t device_busy_ns_ = 0;
  std::int64_t data_stall_ns_ = 0;
};

}  // namespace stallwatch::collector::detail
