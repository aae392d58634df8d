// SPDX-License-Identifier: MIT
#include "window_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stallwatch::collector::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

}  // namespace

WindowMetrics make_metrics(const WindowFacts& f, const VerdictThresholds& t) {
  const auto& q = f.sums.ns;
  WindowMetrics m;
  m.window_ns = f.window_ns;
  m.start_ns = f.start_ns;
  m.end_ns = std::max(f.start_ns, f.end_ns);
  const std::int64_t wall_ns = m.end_ns - m.start_ns;
  const double wall = seconds(wall_ns);
  m.wall_seconds = wall;
  m.compute_seconds = seconds(q[kCompute]);
  m.app_io_seconds = seconds(q[kAppIo]);
  m.io_seconds = seconds(q[kIo]);
  m.fetch_seconds = seconds(q[kFetch]);
  m.comm_seconds = seconds(q[kComm]);
  m.unoverlapped_app_io_seconds = seconds(q[kUnoverlappedAppIo]);
  m.unoverlapped_io_seconds = seconds(q[kUnoverlappedIo]);
  m.unoverlapped_compute_seconds = seconds(q[kUnoverlappedCompute]);
  m.unoverlapped_all_io_seconds = seconds(q[kUnoverlappedAllIo]);
  const std::int64_t device = f.real_device ? q[kDevice] : q[kCompute];
  const std::int64_t stall = f.real_device ? q[kFetchNotDevice] : q[kFetchNotCompute];
  m.device_busy_seconds = seconds(device);
  m.data_stall_seconds = seconds(stall);
  m.overlap_ratio = q[kAppIo] > 0 ? 1.0 - static_cast<double>(q[kUnoverlappedAppIo]) /
                                              static_cast<double>(q[kAppIo])
                                  : kNaN;
  m.loader_io_seconds = seconds(q[kLoaderIo]);
  m.loader_io_ratio =
      q[kAppIo] > 0 ? static_cast<double>(q[kLoaderIo]) / static_cast<double>(q[kAppIo]) : kNaN;
  const bool has_wall = wall_ns > 0;
  m.device_idle_ratio =
      has_wall ? 1.0 - static_cast<double>(device) / static_cast<double>(wall_ns) : kNaN;
  m.data_stall_ratio = has_wall ? static_cast<double>(stall) / static_cast<double>(wall_ns) : kNaN;
  m.steps = static_cast<std::uint64_t>(std::max<std::int64_t>(0, f.sums.steps));
  m.step_seconds_p50 = f.step_p50_s;
  m.step_seconds_p95 = f.step_p95_s;
  m.steps_per_second = has_wall ? static_cast<double>(f.sums.steps) / wall : kNaN;
  m.samples_per_second = has_wall && f.has_batch_size ? f.sums.samples / wall : kNaN;
  const bool io_rates = has_wall && f.io_captured;
  const IoVolume& io = f.sums.io;
  m.read_bytes_per_second = io_rates ? static_cast<double>(io.read_bytes) / wall : kNaN;
  m.write_bytes_per_second = io_rates ? static_cast<double>(io.write_bytes) / wall : kNaN;
  m.read_ops_per_second = io_rates ? static_cast<double>(io.read_ops) / wall : kNaN;
  m.write_ops_per_second = io_rates ? static_cast<double>(io.write_ops) / wall : kNaN;
  const LaunchCounts& l = f.sums.launch;
  const std::int64_t idle_ns = wall_ns - device;
  m.launches = static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.launches));
  m.short_kernels = static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.short_kernels));
  m.long_launches = static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.long_launches));
  m.late_launch_starts = static_cast<std::uint64_t>(std::max<std::int64_t>(0, l.late_starts));
  m.launch_seconds = f.launches_captured ? seconds(l.call_ns) : kNaN;
  m.launch_delay_seconds = f.launches_captured ? seconds(l.delay_ns) : kNaN;
  m.launch_idle_ratio = f.launches_captured && idle_ns > 0
                            ? static_cast<double>(l.call_ns) / static_cast<double>(idle_ns)
                            : kNaN;
  m.launches_captured = f.launches_captured;
  m.verdict = judge(m, t);
  m.io_captured = f.io_captured;
  m.cause = judge_cause(m, t);
  return m;
}

Verdict judge(const WindowMetrics& m, const VerdictThresholds& t) {
  const double wall = m.wall_seconds;
  if (!(wall > 0)) return Verdict::kIdle;
  const double busy = t.idle_busy_ratio * wall;
  if (m.compute_seconds < busy && m.device_busy_seconds < busy && m.app_io_seconds < busy &&
      m.io_seconds < busy && m.steps == 0) {
    return Verdict::kIdle;
  }
  const double peer_wait = m.peer_wait_seconds;
  if (peer_wait / wall >= t.peer_wait_ratio && peer_wait >= m.data_stall_seconds &&
      peer_wait >= m.unoverlapped_all_io_seconds) {
    return Verdict::kWaitingForPeers;
  }
  if (m.data_stall_ratio >= t.data_stall_ratio) return Verdict::kDataStarved;
  if (m.unoverlapped_all_io_seconds / wall >= t.unoverlapped_io_ratio) return Verdict::kIoBound;
  if (m.device_idle_ratio >= t.device_idle_ratio) return Verdict::kHostBound;
  return Verdict::kWellOverlapped;
}

Cause judge_cause(const WindowMetrics& m, const VerdictThresholds& t) {
  if (m.verdict == Verdict::kHostBound) {
    const bool launches = m.launches_captured && m.launch_idle_ratio >= t.launch_idle_ratio;
    return launches ? Cause::kLaunchBound : Cause::kUnknown;
  }
  if (m.verdict != Verdict::kDataStarved) return Cause::kNone;
  if (!m.io_captured || std::isnan(m.loader_io_ratio)) return Cause::kUnknown;
  return m.loader_io_ratio >= t.storage_io_ratio ? Cause::kStorage : Cause::kPreprocessing;
}

}  // namespace stallwatch::collector::detail
