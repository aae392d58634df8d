// SPDX-License-Identifier: MIT
#include "launch_tracker.h"

#include <algorithm>

#include "engine/launch_figures.h"
#include "engine/time_math.h"

namespace stallwatch::collector::detail {

void LaunchTracker::add(bool call, std::uint16_t source, std::uint32_t correlation,
                        std::int64_t start, std::int64_t end, std::int64_t lower) {
  const std::uint64_t key = std::uint64_t{source} << 32 | correlation;
  const Side side{start, end, call};
  const auto found = waiting_.find(key);
  if (found == waiting_.end()) {
    if (waiting_.size() >= kMaxPending) forget_before(order_.front().second + 1);
    waiting_.emplace(key, side);
    order_.emplace_back(key, end);
    return;
  }
  const Side other = found->second;
  if (other.call == call) {  // a reused id: the newer side waits instead
    found->second = side;
    order_.emplace_back(key, end);
    return;
  }
  waiting_.erase(found);
  drop_paired_front();
  if (call) {
    count(side, other, lower);
  } else {
    count(other, side, lower);
  }
}

void LaunchTracker::count(const Side& call, const Side& work, std::int64_t lower) {
  captured_ = true;
  const std::int64_t at = std::max(call.end, work.end);
  if (at < lower) return;
  const LaunchFigures f = launch_figures(call.start, call.end - call.start, work.start, work.end);
  LaunchCounts& c = cells_.at(floor_div(at, res_));
  c.launches += 1;
  c.call_ns += f.call_ns;
  c.delay_ns += f.delay_ns;
  c.short_kernels += f.short_kernel();
  c.long_launches += f.long_launch();
  c.late_starts += f.late_start();
}

void LaunchTracker::forget_before(std::int64_t t_ns) {
  while (!order_.empty() && order_.front().second < t_ns) {
    const auto [key, end] = order_.front();
    order_.pop_front();
    const auto found = waiting_.find(key);
    if (found != waiting_.end() && found->second.end == end) waiting_.erase(found);
  }
}

void LaunchTracker::drop_paired_front() {
  while (!order_.empty()) {
    const auto found = waiting_.find(order_.front().first);
    if (found != waiting_.end() && found->second.end == order_.front().second) return;
    order_.pop_front();
  }
}

std::size_t LaunchTracker::bytes() const {
  return waiting_.size() * (sizeof(std::uint64_t) + sizeof(Side) + 2 * sizeof(void*)) +
         order_.size() * sizeof(order_.front()) + cells_.bytes();
}

}  // namespace stallwatch::collector::detail
