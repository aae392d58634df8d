// SPDX-License-Identifier: MIT
#include "step_tracker.h"

#include <algorithm>

namespace stallwatch::collector::detail {

void StepTracker::add_mark(std::int64_t ts) {
  first_mark_ts_ = std::min(first_mark_ts_, ts);
  auto it = std::upper_bound(pending_.begin(), pending_.end(), ts,
                             [](std::int64_t v, const Pending& p) { return v < p.ts; });
  pending_.insert(it, Pending{ts, false});
}

void StepTracker::add_fetch_end(std::int64_t ts) {
  if (ts >= first_mark_ts_) return;
  auto it = std::upper_bound(pending_.begin(), pending_.end(), ts,
                             [](std::int64_t v, const Pending& p) { return v < p.ts; });
  pending_.insert(it, Pending{ts, true});
}

void StepTracker::add_batch_size(std::int64_t ts, double value) {
  has_batch_size_ = true;
  auto it = std::upper_bound(counters_.begin(), counters_.end(), ts,
                             [](std::int64_t v, const Counter& c) { return v < c.ts; });
  counters_.insert(it, Counter{ts, value});
}

void StepTracker::forget_before(std::int64_t until, WalkEnd end) {
  has_last_step_ = end.has_prev;
  last_step_ts_ = end.prev;
  fallback_before_mark_ = end.fallback_before_mark;
  auto steps_end = std::lower_bound(pending_.begin(), pending_.end(), until,
                                    [](const Pending& p, std::int64_t v) { return p.ts < v; });
  pending_.erase(pending_.begin(), steps_end);
  auto counters_end = std::lower_bound(counters_.begin(), counters_.end(), until,
                                       [](const Counter& c, std::int64_t v) { return c.ts < v; });
  if (counters_end != counters_.begin()) {
    has_final_batch_size_ = true;
    final_batch_size_ = std::prev(counters_end)->value;
  }
  counters_.erase(counters_.begin(), counters_end);
}

std::size_t StepTracker::bytes() const {
  return pending_.capacity() * sizeof(Pending) + counters_.capacity() * sizeof(Counter);
}

}  // namespace stallwatch::collector::detail
