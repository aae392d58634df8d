// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "engine/cell_data.h"
#include "engine/engine_config.h"
#include "engine/snapshot.h"

namespace stallwatch::collector::detail {

// Everything a window's metrics are computed from.
struct WindowFacts {
  std::int64_t window_ns = 0;  // 0 = totals
  std::int64_t start_ns = 0;   // the window clipped to the rank's lifetime
  std::int64_t end_ns = 0;
  Sums sums;
  bool real_device = false;  // a source reports CUPTI or CUDA events; else D := C
  bool has_batch_size = false;
  bool io_captured = false;        // the rank has IO-class time since its start
  bool launches_captured = false;  // the rank has had a launch paired with its work
  double step_p50_s = 0;           // NaN when no step durations
  double step_p95_s = 0;
};

// The window metrics (docs/design.md, "Metrics") and the verdict for one window.
WindowMetrics make_metrics(const WindowFacts& f, const VerdictThresholds& t);

// The verdict rules, in order: idle, data-starved, io-bound, host-bound,
// well-overlapped. Works on rank windows and on job means alike.
Verdict judge(const WindowMetrics& m, const VerdictThresholds& t);

// The cause of m.verdict (docs/api.md, "Cause"). Data-starved: unknown
// without captured I/O or without app I/O; storage when loader_io_ratio >=
// t.storage_io_ratio; else preprocessing. Host-bound: launch-bound when
// launch_idle_ratio >= t.launch_idle_ratio (never without launch records),
// else unknown. None for any other verdict.
Cause judge_cause(const WindowMetrics& m, const VerdictThresholds& t);

}  // namespace stallwatch::collector::detail
