// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "engine/name_table.h"
#include "step_tracker.h"

namespace stallwatch::collector::detail {

// How far one rank's training has come, as its events say: the steps not
// finalized yet (a StepTracker: step marks, main-thread fetch ends and
// batch-size counters) and the rank's current step and epoch (the value of
// the latest step mark and epoch-start mark by time; -1 before any).
//
// Takes on-time events only (EventWalk drops late marks and counters) and
// does not classify them: the walk decides which region ends are
// main-thread fetches. Finalized steps are handed on by WindowFinalizer,
// which drives steps() directly.
//
// Single-threaded; owned by one RankTracker.
class TrainingProgress {
 public:
  // The names the engine interned for the configured step mark, epoch-start
  // mark and batch-size counter.
  TrainingProgress(NameId step_mark, NameId epoch_start, NameId batch_size)
      : step_mark_(step_mark), epoch_start_(epoch_start), batch_size_(batch_size) {}

  // A MARK named `name` at `ts` with `value`: a step mark is a step when it
  // is not before the rank's start `start_ns`; step and epoch marks set the
  // current step or epoch unless a later one did; a step mark ends the
  // fallback to fetch ends (StepTracker). Other names are ignored.
  void add_mark(NameId name, std::int64_t ts, std::int64_t value, std::int64_t start_ns);
  bool is_batch_size(NameId name) const { return name == batch_size_; }
  void add_batch_size(std::int64_t ts, double value) { steps_.add_batch_size(ts, value); }
  // The end of a main-thread FETCH region: a step for a rank without marks.
  void add_fetch_end(std::int64_t ts) { steps_.add_fetch_end(ts); }

  std::int64_t step() const { return step_; }
  std::int64_t epoch() const { return epoch_; }
  bool has_batch_size() const { return steps_.has_batch_size(); }
  StepTracker& steps() { return steps_; }
  const StepTracker& steps() const { return steps_; }
  std::size_t bytes() const { return steps_.bytes(); }

 private:
  static constexpr std::int64_t kNoMark = std::numeric_limits<std::int64_t>::min();

  NameId step_mark_;
  NameId epoch_start_;
  NameId batch_size_;
  StepTracker steps_;
  std::int64_t epoch_ = -1;
  std::int64_t epoch_ts_ = kNoMark;
  std::int64_t step_ = -1;
  std::int64_t step_ts_ = kNoMark;
};

}  // namespace stallwatch::collector::detail
