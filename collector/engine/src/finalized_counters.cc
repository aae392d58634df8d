// SPDX-License-Identifier: MIT
#include "finalized_counters.h"

#include <algorithm>

#include "rank_sources.h"

namespace stallwatch::collector::detail {

void FinalizedCounters::advance(const Sums& totals, bool real_device) {
  const std::int64_t device = totals.ns[kDevice] - seen_device_;
  const std::int64_t compute = totals.ns[kCompute] - seen_compute_;
  const std::int64_t fetch_not_device = totals.ns[kFetchNotDevice] - seen_fetch_not_device_;
  const std::int64_t fetch_not_compute = totals.ns[kFetchNotCompute] - seen_fetch_not_compute_;
  device_busy_ns_ += real_device ? device : compute;
  data_stall_ns_ += real_device ? fetch_not_device : fetch_not_compute;
  seen_device_ = totals.ns[kDevice];
  seen_compute_ = totals.ns[kCompute];
  seen_fetch_not_device_ = totals.ns[kFetchNotDevice];
  seen_fetch_not_compute_ = totals.ns[kFetchNotCompute];
}

FinalizedTotals FinalizedCounters::describe(const Sums& totals, std::int64_t start_ns,
                                            std::int64_t horizon_ns, std::int64_t end_ns,
                                            const std::vector<std::uint64_t>& step_buckets) const {
  FinalizedTotals f;
  f.horizon_ns = horizon_ns == kNoTime || horizon_ns < start_ns ? start_ns : horizon_ns;
  f.wall_ns =
      (end_ns == kNoTime ? f.horizon_ns : std::clamp(end_ns, start_ns, f.horizon_ns)) - start_ns;
  const auto& q = totals.ns;
  f.compute_ns = q[kCompute];
  f.app_io_ns = q[kAppIo];
  f.io_ns = q[kIo];
  f.fetch_ns = q[kFetch];
  f.comm_ns = q[kComm];
  f.unoverlapped_app_io_ns = q[kUnoverlappedAppIo];
  f.unoverlapped_io_ns = q[kUnoverlappedIo];
  f.unoverlapped_compute_ns = q[kUnoverlappedCompute];
  f.unoverlapped_all_io_ns = q[kUnoverlappedAllIo];
  f.device_busy_ns = device_busy_ns_;
  f.data_stall_ns = data_stall_ns_;
  f.steps = static_cast<std::uint64_t>(totals.steps);
  f.samples = totals.samples;
  f.step_durations = static_cast<std::uint64_t>(totals.durations);
  f.step_duration_sum_ns = totals.duration_sum_ns;
  f.read_bytes = totals.io.read_bytes;
  f.write_bytes = totals.io.write_bytes;
  f.read_ops = totals.io.read_ops;
  f.write_ops = totals.io.write_ops;
  f.step_buckets.reserve(step_buckets.size());
  std::uint64_t below = 0;
  for (const std::uint64_t n : step_buckets) {
    below += n;
    f.step_buckets.push_back(below);
  }
  return f;
}

}  // namespace stallwatch::collector::detail
