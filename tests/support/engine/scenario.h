// SPDX-License-Identifier: MIT
#pragma once

// Random but realistic event sets for the property tests: one rank with a
// main process and workers, several threads each, nested regions (Complete
// or Begin/End), regions left open, step marks or none (fetch fallback),
// batch-size counters, a device signal or none, per-thread buffering, killed
// workers, final batches, delivery delays (in order, shuffled within the
// lateness, or late) and lost batches. All times are whole microseconds.

#include <cstdint>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"

namespace stallwatch::collector::testing {

struct ScenarioOptions {
  int max_sources = 3;
  int max_threads = 3;
  std::int64_t life_us_min = 30'000;
  std::int64_t life_us_max = 60'000;
  std::int64_t max_delay_us = 0;     // delivery delay per batch, uniform in [0, max]
  double late_batch_share = 0.0;     // share of batches delayed by up to 3x max_delay_us more
  bool per_thread_buffering = true;  // threads may hold events back for a batch or two
  bool reorder_within_source = false;
  // Share of batches lost on the way (sequence gaps, final batches too): the
  // regions they cut follow the crash rules of docs/api.md.
  double lost_batch_share = 0.0;
  // When > 0: the second half of the run happens this much later, with no
  // batch in between (a pause: the watermark jumps, regions stretch over it).
  std::int64_t pause_us = 0;
};

struct Scenario {
  std::vector<DecodedBatch> deliveries;  // in arrival order
  std::vector<std::size_t> ticks_after;  // tick after these delivery indices
  std::int64_t start_ns = 0;
};

Scenario make_scenario(std::uint32_t seed, const ScenarioOptions& options, NameTable& names);

}  // namespace stallwatch::collector::testing
