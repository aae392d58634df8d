// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace stallwatch::collector::detail {

// The steps of one rank that are not finalized yet, and what is needed to
// price them: a step is a step MARK, or — for a rank that never sends one —
// the end of a FETCH region on a main thread (not the wait that ended its
// loop, nor a call that returned a generator: no batch came). Fallback
// steps count only before the rank's first step mark (by time), so the
// result does not depend on arrival order, and a rank that marks its steps
// is counted by its step marks alone. Epoch marks do not end the fallback: a
// loop that marks its epochs but not its steps is counted by its fetches. A
// fallback step counts the batch its fetch brought, a step mark the batch
// whose step it ends, so when the rank's first step mark has fallback steps
// before it (the fetch that brought the first batch precedes the first step
// mark), that mark ends the step its fetch already counted: it is not a
// step, but the next step's duration runs from it. A step's duration is the time since the previous
// step of the rank; its samples are the batch size in force (latest COUNTER
// by time, at or before the step).
//
// Single-threaded, owned by one TrainingProgress; WindowFinalizer hands
// finalized steps on to the windows and forgets them here.
class StepTracker {
 public:
  struct Step {
    std::int64_t ts_ns = 0;
    bool has_duration = false;
    std::int64_t duration_ns = 0;
    double samples = 0;
  };

  void add_mark(std::int64_t ts);
  void add_fetch_end(std::int64_t ts);
  void add_batch_size(std::int64_t ts, double value);
  bool has_batch_size() const { return has_batch_size_; }

  // Calls fn(const Step&) for each counted step before `until`, in time order.
  template <class Fn>
  void for_each_pending(std::int64_t until, Fn&& fn) const {
    walk(until, fn);
  }
  // Same, then forgets those steps (and counters before `until`).
  template <class Fn>
  void finalize(std::int64_t until, Fn&& fn);

  std::size_t pending() const { return pending_.size(); }
  std::size_t bytes() const;

 private:
  struct Pending {
    std::int64_t ts;
    bool fallback;
  };
  struct Counter {
    std::int64_t ts;
    double value;
  };

  // Where a walk left off: the time the next step's duration runs from, and
  // whether a fallback step was counted.
  struct WalkEnd {
    bool has_prev;
    std::int64_t prev;
    bool fallback_before_mark;
  };
  template <class Fn>
  WalkEnd walk(std::int64_t until, Fn& fn) const;
  void forget_before(std::int64_t until, WalkEnd end);

  std::vector<Pending> pending_;   // sorted by ts, stable for equal ts
  std::vector<Counter> counters_;  // sorted by ts, stable for equal ts
  bool has_batch_size_ = false;
  bool has_final_batch_size_ = false;
  double final_batch_size_ = 0;  // latest counter already forgotten
  bool has_last_step_ = false;
  std::int64_t last_step_ts_ = 0;      // latest finalized step (or first mark not counted)
  bool fallback_before_mark_ = false;  // a fallback step was finalized
  // The first step mark: fetch ends before it are steps.
  std::int64_t first_mark_ts_ = std::numeric_limits<std::int64_t>::max();
};

template <class Fn>
StepTracker::WalkEnd StepTracker::walk(std::int64_t until, Fn& fn) const {
  bool has_prev = has_last_step_;
  std::int64_t prev = last_step_ts_;
  bool fallback_before_mark = fallback_before_mark_;
  bool has_size = has_final_batch_size_;
  double size = final_batch_size_;
  std::size_t c = 0;
  for (const Pending& p : pending_) {
    if (p.ts >= until) break;
    if (p.fallback && p.ts >= first_mark_ts_) continue;
    if (!p.fallback && p.ts == first_mark_ts_ && fallback_before_mark) {
      fallback_before_mark = false;  // only this first mark is not a step
      has_prev = true;
      prev = p.ts;
      continue;
    }
    fallback_before_mark = fallback_before_mark || p.fallback;
    for (; c < counters_.size() && counters_[c].ts <= p.ts; ++c) {
      has_size = true;
      size = counters_[c].value;
    }
    Step s;
    s.ts_ns = p.ts;
    s.has_duration = has_prev;
    s.duration_ns = has_prev ? p.ts - prev : 0;
    s.samples = has_size ? size : 0;
    fn(s);
    has_prev = true;
    prev = p.ts;
  }
  return {has_prev, prev, fallback_before_mark};
}

template <class Fn>
void StepTracker::finalize(std::int64_t until, Fn&& fn) {
  const auto last = walk(until, fn);
  forget_before(until, last);
}

}  // namespace stallwatch::collector::detail
