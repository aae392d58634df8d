// SPDX-License-Identifier: MIT
#include "engine/engine_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

namespace stallwatch::collector {
namespace {

// Bounds that keep per-rank memory sane whatever the configuration says.
constexpr std::int64_t kMaxHistoryCells = 1'000'000;
constexpr std::int64_t kMaxPendingCells = 100'000;

std::string positive(std::string_view field, std::int64_t value) {
  if (value > 0) return {};
  return std::string(field) + " must be > 0, got " + std::to_string(value);
}

std::string ratio(std::string_view field, double value) {
  if (std::isfinite(value) && value >= 0.0 && value <= 1.0) return {};
  return std::string(field) + " must be within [0, 1], got " + std::to_string(value);
}

}  // namespace

std::size_t first_unordered_bound(const std::vector<std::int64_t>& bounds_ns) {
  for (std::size_t i = 0; i < bounds_ns.size(); ++i) {
    if (bounds_ns[i] <= 0 || (i > 0 && bounds_ns[i] <= bounds_ns[i - 1])) return i;
  }
  return bounds_ns.size();
}

std::string validate(const EngineConfig& c) {
  const std::int64_t res = c.resolution_ns;
  if (res <= 0 || res > std::int64_t{std::numeric_limits<std::uint32_t>::max()}) {
    return "resolution_ns must be within [1, 4294967295], got " + std::to_string(res);
  }
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < c.windows_ns.size(); ++i) {
    const std::int64_t w = c.windows_ns[i];
    if (w <= 0 || w % res != 0) {
      return "windows_ns[" + std::to_string(i) +
             "] must be a positive multiple of resolution_ns (" + std::to_string(res) + "), got " +
             std::to_string(w);
    }
    if (std::count(c.windows_ns.begin(), c.windows_ns.end(), w) > 1) {
      return "windows_ns lists " + std::to_string(w) + " more than once";
    }
    longest = std::max(longest, w);
  }
  if (c.verdict_window_ns != 0 && std::find(c.windows_ns.begin(), c.windows_ns.end(),
                                            c.verdict_window_ns) == c.windows_ns.end()) {
    return "verdict_window_ns must be one of windows_ns (or 0 for the totals), got " +
           std::to_string(c.verdict_window_ns);
  }
  if (c.lateness_ns < 0) return "lateness_ns must be >= 0, got " + std::to_string(c.lateness_ns);
  if (c.lateness_ns / res > kMaxPendingCells) {
    return "lateness_ns / resolution_ns must be at most " + std::to_string(kMaxPendingCells);
  }
  for (auto [field, value] :
       {std::pair<std::string_view, std::int64_t>{"silent_after_ns", c.silent_after_ns},
        {"forget_after_ns", c.forget_after_ns},
        {"timeline_ns", c.timeline_ns}}) {
    if (auto err = positive(field, value); !err.empty()) return err;
  }
  const std::int64_t needed = longest + c.lateness_ns + res;
  if (c.history_ns < needed) {
    return "history_ns must be at least the longest window + lateness_ns + resolution_ns (" +
           std::to_string(needed) + "), got " + std::to_string(c.history_ns);
  }
  if (c.history_ns / res > kMaxHistoryCells) {
    return "history_ns / resolution_ns must be at most " + std::to_string(kMaxHistoryCells);
  }
  for (auto [field, value] :
       {std::pair<std::string_view, std::size_t>{"timeline_max_regions", c.timeline_max_regions},
        {"max_ranks", c.max_ranks},
        {"max_sources_per_rank", c.max_sources_per_rank},
        {"max_open_regions_per_source", c.max_open_regions_per_source},
        {"max_steps_kept", c.max_steps_kept},
        {"top_files_per_cell", c.top_files_per_cell},
        {"top_kernels_per_cell", c.top_kernels_per_cell},
        {"max_files_per_source", c.max_files_per_source},
        {"top_files_total_files", c.top_files_total_files},
        {"top_files_shown", c.top_files_shown}}) {
    if (value == 0) return std::string(field) + " must be > 0";
  }
  if (c.top_files_shown > kMaxTopFilesShown) {
    return "top_files_shown must be at most " + std::to_string(kMaxTopFilesShown) + ", got " +
           std::to_string(c.top_files_shown);
  }
  if (c.max_sources_per_rank > 65535) {
    return "max_sources_per_rank must be at most 65535, got " +
           std::to_string(c.max_sources_per_rank);
  }
  if (c.step_histogram_bounds_ns.size() > kMaxStepHistogramBounds) {
    return "step_histogram_bounds_ns has more than " + std::to_string(kMaxStepHistogramBounds) +
           " bounds";
  }
  if (const std::size_t i = first_unordered_bound(c.step_histogram_bounds_ns);
      i < c.step_histogram_bounds_ns.size()) {
    return "step_histogram_bounds_ns must be positive and ascending, got " +
           std::to_string(c.step_histogram_bounds_ns[i]) + " at [" + std::to_string(i) + "]";
  }
  if (c.step_mark.empty()) return "step_mark must not be empty";
  if (c.clock_window_ns < kNsPerSecond || c.clock_window_ns % kNsPerSecond != 0 ||
      c.clock_window_ns > 3600 * kNsPerSecond) {
    return "clock_window_ns must be whole seconds between 1 s and 1 h, got " +
           std::to_string(c.clock_window_ns);
  }
  if (c.clock_warning_ns <= 0) {
    return "clock_warning_ns must be > 0, got " + std::to_string(c.clock_warning_ns);
  }
  for (auto [field, value] :
       {std::pair<std::string_view, double>{"verdict.idle_busy_ratio", c.verdict.idle_busy_ratio},
        {"verdict.data_stall_ratio", c.verdict.data_stall_ratio},
        {"verdict.unoverlapped_io_ratio", c.verdict.unoverlapped_io_ratio},
        {"verdict.device_idle_ratio", c.verdict.device_idle_ratio},
        {"verdict.peer_wait_ratio", c.verdict.peer_wait_ratio},
        {"verdict.storage_io_ratio", c.verdict.storage_io_ratio},
        {"verdict.launch_idle_ratio", c.verdict.launch_idle_ratio},
        {"straggler.blame_share", c.straggler.blame_share},
        {"straggler.cost_ratio", c.straggler.cost_ratio}}) {
    if (auto err = ratio(field, value); !err.empty()) return err;
  }
  return {};
}

}  // namespace stallwatch::collector
