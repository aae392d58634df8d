// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/event_class.h"
#include "interval_math.h"

namespace stallwatch::collector {

// Exact lengths of class unions and of their differences for one rank, in ns
// (the window metrics' definitions and DFAnalyzer's summary fields, computed exactly).
struct IntervalTotals {
  std::int64_t compute = 0;
  std::int64_t app_io = 0;
  std::int64_t io = 0;
  std::int64_t fetch = 0;
  std::int64_t device_busy = 0;
  std::int64_t comm = 0;
  std::int64_t unoverlapped_app_io = 0;   // |APP_IO \ COMPUTE|
  std::int64_t unoverlapped_io = 0;       // |IO \ COMPUTE|
  std::int64_t unoverlapped_compute = 0;  // |COMPUTE \ IO|      (DFAnalyzer "Unoverlapped Compute")
  std::int64_t unoverlapped_app_compute =
      0;                              // |COMPUTE \ APP_IO|  (DFAnalyzer "Unoverlapped App Compute")
  std::int64_t compute_only = 0;      // |COMPUTE \ (APP_IO ∪ IO)|
  std::int64_t fetch_not_device = 0;  // |FETCH \ DEVICE_BUSY|

  IntervalTotals& operator+=(const IntervalTotals& other);
};

// Accumulates one rank's class intervals and reduces them to IntervalTotals
// with memory bounded by a time horizon instead of the trace length: time
// older than (latest end seen - horizon) is sealed, measured and dropped.
// An interval that starts in sealed time is refused as late (add() returns
// false) so the caller can redo the rank with it added up front (exactness is
// never traded for memory).
//
// Sealing points depend only on the stream of add()/advance() calls, never on
// add_early() intervals, so a second pass seals at the same times. Not
// thread-safe.
class RankIntervals {
 public:
  static constexpr std::size_t kSealEvery = 16384;  // intervals between seal attempts

  explicit RankIntervals(std::int64_t horizon_ns);

  // Adds [start, end) to each tracked class in `classes`. False when start is
  // before sealed time: the part after it is kept, the rest is not counted.
  bool add(ClassMask classes, std::int64_t start, std::int64_t end);
  // Adds an interval known (from a first pass) to arrive late, before any
  // sealing; does not move the sealing schedule.
  void add_early(ClassMask classes, std::int64_t start, std::int64_t end);
  // Reports the latest end time seen in the rank's stream.
  void advance(std::int64_t watermark_ns);
  // Seals everything and returns the totals; the object is spent afterwards.
  IntervalTotals finish();

  std::int64_t sealed_to() const { return sealed_to_; }
  std::size_t pending() const;
  std::size_t peak_pending() const { return peak_pending_; }

 private:
  static constexpr int kTracked = 6;  // compute, app_io, io, fetch, device_busy, comm
  void insert(ClassMask classes, std::int64_t start, std::int64_t end);
  void seal(std::int64_t at);

  std::int64_t horizon_ns_;
  std::int64_t watermark_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t sealed_to_ = std::numeric_limits<std::int64_t>::min();
  std::size_t since_seal_ = 0;
  std::size_t peak_pending_ = 0;
  std::array<std::vector<Interval>, kTracked> open_;  // normalized, all >= sealed_to_
  // Appended; normalized as it grows while intervals come in end order (as
  // trace files are written), raw from the first one that does not.
  std::array<std::vector<Interval>, kTracked> pending_;
  std::array<bool, kTracked> pending_normalized_{};
  std::array<std::vector<Interval>, kTracked> sealed_;  // scratch
  std::vector<Interval> scratch_;
  IntervalTotals totals_;
};

}  // namespace stallwatch::collector
