// SPDX-License-Identifier: MIT
#pragma once

// What an integration_agent run actually recorded (its --report file), and
// the metrics the collector must therefore show for a given window. Each
// stamp the agent took is known only within a bracket [lo, hi] (two
// sw_now_ns() readings around the call), so every expected figure comes with
// a tolerance: the sum of the bracket widths that can move it. Test-only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallwatch::test {

struct Stamp {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t mid() const { return lo + (hi - lo) / 2; }
};

struct RecordedRegion {
  std::string cls;  // "fetch", "compute", "loader"
  Stamp begin;
  Stamp end;
};

struct AgentStats {
  std::uint64_t events_recorded = 0;
  std::uint64_t events_dropped = 0;
  std::uint64_t events_sent = 0;
  std::uint64_t events_lost_in_send = 0;
  std::uint64_t batches_sent = 0;
  std::uint64_t queue_depth = 0;
  std::uint64_t send_failures = 0;  // batches ZeroMQ refused (their seq numbers are gaps)
};

struct AgentReport {
  std::vector<RecordedRegion> regions;
  std::vector<Stamp> step_marks;
  std::int64_t batch_size = 0;
  AgentStats stats;
};

// Reads a report file; nullopt when missing or malformed.
std::optional<AgentReport> load_agent_report(const std::string& path);

// A figure and how far the collector's exact value may lie from it.
struct Expected {
  double value = 0;
  double tolerance = 0;
};

// The window metrics over [start_ns, end_ns), compute standing in for the
// device (compute-proxy). Seconds, ratios of the window's wall time, steps.
struct ExpectedWindow {
  double wall_seconds = 0;
  Expected compute_seconds;
  Expected fetch_seconds;
  Expected app_io_seconds;
  Expected unoverlapped_app_io_seconds;  // |APP_IO \ COMPUTE|
  Expected data_stall_seconds;           // |FETCH \ COMPUTE|
  Expected device_idle_ratio;            // 1 - |COMPUTE| / wall
  Expected data_stall_ratio;
  std::uint64_t steps_min = 0;       // marks surely inside the window
  std::uint64_t steps_max = 0;       // marks possibly inside it
  std::vector<double> step_seconds;  // recorded step durations ending inside, sorted
};

ExpectedWindow expected_window(const AgentReport& report, std::int64_t start_ns,
                               std::int64_t end_ns);

}  // namespace stallwatch::test
