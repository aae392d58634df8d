// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hta_trace.h"

namespace stallwatch::collector {

// One rank's training steps: its ProfilerStep#N host rows (all of them, the
// last one included even where HTA's other analyses drop it), in µs.
struct HtaRankSteps {
  std::int64_t rank = 0;
  std::uint64_t steps = 0;
  std::int64_t total_us = 0;  // sum of the step durations
  double mean_us = 0;
  double p50_us = 0;
  double max_us = 0;
};

std::vector<HtaRankSteps> hta_rank_steps(const HtaTrace& trace);

// Throughput as the DLRM study reports it: samples (queries) per second of
// step time. `batch_size` is the samples one rank processes per step, so a
// rank's QPS is batch_size x steps / its summed step time, and the job's is
// the sum over its ranks (data-parallel ranks each process their own batch).
// No value without a batch size or for a rank without steps.
std::optional<double> hta_rank_qps(const HtaRankSteps& steps, std::int64_t batch_size);
std::optional<double> hta_job_qps(const std::vector<HtaRankSteps>& ranks, std::int64_t batch_size);

}  // namespace stallwatch::collector
