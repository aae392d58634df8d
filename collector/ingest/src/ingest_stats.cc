// SPDX-License-Identifier: MIT
#include "ingest/ingest_stats.h"

#include <numeric>

namespace stallwatch::collector {

std::uint64_t IngestStats::invalid_total() const {
  return std::accumulate(invalid_frames.begin(), invalid_frames.end(), std::uint64_t{0});
}

}  // namespace stallwatch::collector
