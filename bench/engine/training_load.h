// SPDX-License-Identifier: MIT
#pragma once

// Synthetic training-loop events for engine benchmarks: per rank a main
// process (fetch, step with forward/backward/optimizer as Begin/End, a step
// mark, GPU kernels as Complete on a stream thread) and two data-loader
// workers (a collate region around POSIX reads), in 10 ms iterations, sent
// as one batch per process per slice. Batches are built once and re-timed
// for each slice, so generating load costs one add per event. With
// `collectives`, each iteration's backward ends in that many comm/all_reduce
// calls whose arrivals are staggered by rank, as in data-parallel training:
// the ranks that arrive first wait for their peers. With `launches`, the
// kernels come as the CUPTI source sends them: each under its own name with a
// correlation id shared with a cudaLaunchKernel call on the main thread.

#include <cstdint>
#include <vector>

#include "engine/decoded_batch.h"
#include "engine/name_table.h"

namespace stallwatch::bench {

struct LoadShape {
  int ranks = 1;
  std::int64_t slice_ns = 100'000'000;  // one batch per process per slice
  int reads_per_worker = 38;            // per 10 ms iteration; 38 gives 10k events/s per rank
  int collectives = 0;                  // comm calls per iteration (2 events each)
  bool launches = false;                // kernels named and joined to launch calls
};

class TrainingLoad {
 public:
  TrainingLoad(const LoadShape& shape, collector::NameTable& names, std::int64_t t0_ns);

  // The batches of slice `index` (sent at its end), in delivery order.
  const std::vector<collector::DecodedBatch>& slice(std::int64_t index);
  std::int64_t slice_end_ns(std::int64_t index) const;
  std::uint64_t events_per_slice() const { return events_per_slice_; }

 private:
  LoadShape shape_;
  std::int64_t t0_ns_;
  std::int64_t current_ = 0;     // the slice the batches are timed for
  std::int64_t iterations_ = 0;  // per slice: step marks count on by this per slice
  std::vector<collector::DecodedBatch> batches_;
  std::uint64_t events_per_slice_ = 0;
};

}  // namespace stallwatch::bench
