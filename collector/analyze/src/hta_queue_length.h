// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

#include "hta_trace.h"
#include "pandas_describe.h"

namespace stallwatch::collector {

// HTA's queue length of one stream of one rank: the number of operations
// launched on the stream and not yet started, stepped at every launch (+1)
// and every device start (-1) in HTA's order (get_queue_length_time_series),
// summarized as get_queue_length_summary does, with the time the stream spent
// at or above `kMaxQueueLength` (get_time_spent_blocked_on_full_queue, in µs:
// each step lasts until the stream's next step).
struct HtaQueueLength {
  static constexpr std::int64_t kMaxQueueLength = 1024;

  std::int64_t rank = 0;
  std::int64_t stream = 0;
  Describe queue_length;
  std::int64_t blocked_us = 0;
};

// Every rank's streams, by rank then stream.
std::vector<HtaQueueLength> hta_queue_lengths(const HtaTrace& trace);

}  // namespace stallwatch::collector
