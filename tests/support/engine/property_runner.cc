// SPDX-License-Identifier: MIT
#include "property_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>

#include "engine/metric_fields.h"
#include "oracle.h"
#include "stallwatch/event_flags.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

EngineConfig property_config() {
  EngineConfig c = small_config();
  c.windows_ns = {ms(3), ms(10), ms(30)};  // 3 ms: shorter than the lateness, all pending
  c.max_steps_kept = 1 << 20;
  c.timeline_max_regions = 64;
  c.step_histogram_bounds_ns = {us(500), ms(1), ms(2), ms(4)};
  c.top_files_per_cell = 1;     // so that finalized cells have an "other" row
  c.top_kernels_per_cell = 1;   // likewise
  c.max_files_per_source = 3;   // so that a file id goes unnamed
  c.top_files_total_files = 2;  // so that the totals have an "other" row
  return c;
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b));
}

// Returns a description of the first difference, or "".
std::string diff(const WindowMetrics& e, const WindowMetrics& o) {
  std::ostringstream out;
  auto check = [&](std::string_view field, double x, double y) {
    if (out.tellp() == 0 && !same(x, y)) out << field << ": engine " << x << " oracle " << y;
  };
  check("start_ns", static_cast<double>(e.start_ns), static_cast<double>(o.start_ns));
  check("end_ns", static_cast<double>(e.end_ns), static_cast<double>(o.end_ns));
  for (const MetricField& f : metric_fields())
    check(f.name(), f.get(e), f.get(o));
  check("verdict", static_cast<double>(e.verdict), static_cast<double>(o.verdict));
  check("io_captured", e.io_captured ? 1 : 0, o.io_captured ? 1 : 0);
  check("cause", static_cast<double>(e.cause), static_cast<double>(o.cause));
  return out.str();
}

std::string describe(const FileIoEntry& f) {
  return "'" + f.path + "' " + std::to_string(f.io_ns) + " ns, " + std::to_string(f.read_bytes) +
         " B read, " + std::to_string(f.write_bytes) + " B written, " + std::to_string(f.ops) +
         " calls";
}

std::string describe(const KernelEntry& k) {
  return "'" + k.name + "' " + std::to_string(k.device_ns) + " ns, " + std::to_string(k.count) +
         " pieces";
}

// Returns a description of the first difference between two top-kernels lists, or "".
std::string diff_top_kernels(const std::vector<TopKernels>& e, const std::vector<TopKernels>& o) {
  if (e.size() != o.size())
    return std::to_string(e.size()) + " windows, oracle " + std::to_string(o.size());
  for (std::size_t w = 0; w < e.size(); ++w) {
    const std::string where = "window " + std::to_string(o[w].window_ns) + ": ";
    if (e[w].window_ns != o[w].window_ns) return where + "engine's is another window";
    for (std::size_t i = 0; i < std::max(e[w].kernels.size(), o[w].kernels.size()); ++i) {
      if (i >= e[w].kernels.size()) return where + "engine lacks " + describe(o[w].kernels[i]);
      if (i >= o[w].kernels.size()) return where + "engine has more: " + describe(e[w].kernels[i]);
      if (e[w].kernels[i] != o[w].kernels[i])
        return where + "#" + std::to_string(i) + " engine " + describe(e[w].kernels[i]) +
               ", oracle " + describe(o[w].kernels[i]);
    }
    if (e[w].other != o[w].other)
      return where + "other: engine " + describe(e[w].other) + ", oracle " + describe(o[w].other);
  }
  return "";
}

// Returns a description of the first difference between two top-files lists, or "".
std::string diff_top_files(const std::vector<TopFiles>& e, const std::vector<TopFiles>& o) {
  if (e.size() != o.size())
    return std::to_string(e.size()) + " windows, oracle " + std::to_string(o.size());
  for (std::size_t w = 0; w < e.size(); ++w) {
    const std::string where = "window " + std::to_string(o[w].window_ns) + ": ";
    if (e[w].window_ns != o[w].window_ns) return where + "engine's is another window";
    for (std::size_t i = 0; i < std::max(e[w].files.size(), o[w].files.size()); ++i) {
      if (i >= e[w].files.size()) return where + "engine lacks " + describe(o[w].files[i]);
      if (i >= o[w].files.size()) return where + "engine has more: " + describe(e[w].files[i]);
      if (e[w].files[i] != o[w].files[i])
        return where + "#" + std::to_string(i) + " engine " + describe(e[w].files[i]) +
               ", oracle " + describe(o[w].files[i]);
    }
    if (e[w].other != o[w].other)
      return where + "other: engine " + describe(e[w].other) + ", oracle " + describe(o[w].other);
  }
  return "";
}

// The fields of FinalizedTotals, by name, as doubles (all exact integers but
// samples, a sum of integers).
std::vector<std::pair<std::string, double>> counter_fields(const FinalizedTotals& f) {
  std::vector<std::pair<std::string, double>> out{
      {"horizon_ns", static_cast<double>(f.horizon_ns)},
      {"wall_ns", static_cast<double>(f.wall_ns)},
      {"compute_ns", static_cast<double>(f.compute_ns)},
      {"app_io_ns", static_cast<double>(f.app_io_ns)},
      {"io_ns", static_cast<double>(f.io_ns)},
      {"fetch_ns", static_cast<double>(f.fetch_ns)},
      {"comm_ns", static_cast<double>(f.comm_ns)},
      {"unoverlapped_app_io_ns", static_cast<double>(f.unoverlapped_app_io_ns)},
      {"unoverlapped_io_ns", static_cast<double>(f.unoverlapped_io_ns)},
      {"unoverlapped_compute_ns", static_cast<double>(f.unoverlapped_compute_ns)},
      {"unoverlapped_all_io_ns", static_cast<double>(f.unoverlapped_all_io_ns)},
      {"device_busy_ns", static_cast<double>(f.device_busy_ns)},
      {"data_stall_ns", static_cast<double>(f.data_stall_ns)},
      {"steps", static_cast<double>(f.steps)},
      {"samples", f.samples},
      {"step_durations", static_cast<double>(f.step_durations)},
      {"step_duration_sum_ns", static_cast<double>(f.step_duration_sum_ns)},
      {"read_bytes", static_cast<double>(f.read_bytes)},
      {"write_bytes", static_cast<double>(f.write_bytes)},
      {"read_ops", static_cast<double>(f.read_ops)},
      {"write_ops", static_cast<double>(f.write_ops)},
  };
  for (std::size_t b = 0; b < f.step_buckets.size(); ++b)
    out.emplace_back("step_buckets[" + std::to_string(b) + "]",
                     static_cast<double>(f.step_buckets[b]));
  return out;
}

// The counters must equal the oracle's sums over [start, horizon) exactly,
// and none may be below its value at the previous tick. Returns a
// description of the first violation, or "".
std::string check_counters(const FinalizedTotals& engine, const FinalizedTotals& oracle,
                           const FinalizedTotals* previous) {
  const auto e = counter_fields(engine);
  const auto o = counter_fields(oracle);
  if (e.size() != o.size())
    return "step_buckets: engine has " + std::to_string(e.size()) + " fields, oracle " +
           std::to_string(o.size());
  std::ostringstream out;
  for (std::size_t i = 0; i < e.size() && out.tellp() == 0; ++i) {
    if (e[i].second != o[i].second) {
      out << "counter " << e[i].first << ": engine " << e[i].second << " oracle " << o[i].second;
    }
  }
  if (previous != nullptr) {
    const auto p = counter_fields(*previous);
    for (std::size_t i = 0; i < e.size() && out.tellp() == 0; ++i) {
      if (e[i].second < p[i].second) {
        out << "counter " << e[i].first << " went back from " << p[i].second << " to "
            << e[i].second;
      }
    }
  }
  return out.str();
}

// Runs one scenario through the engine and the oracle; false on the first difference.
bool run_case(std::uint32_t seed, const ScenarioOptions& options, DeliveryPath& path,
              PropertyTotals& totals, std::int64_t history_ns) {
  EngineConfig config = property_config();
  if (history_ns > 0) config.history_ns = history_ns;
  NameTable names;
  Engine engine(config, names);
  Oracle oracle(config, names);
  const Scenario sc = make_scenario(seed, options, names);
  path.start(engine, names);
  std::size_t next_tick = 0;
  std::optional<FinalizedTotals> previous;
  // After the last delivery, one more tick a lateness later: a rank whose
  // sources have all finished is then final up to its end.
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (const DecodedBatch& b : sc.deliveries)
    latest = std::max(latest, b.sent_at_ns);
  for (std::size_t i = 0; i <= sc.deliveries.size(); ++i) {
    const bool after_all = i == sc.deliveries.size();
    std::int64_t now = latest + config.lateness_ns;
    if (!after_all) {
      const DecodedBatch& b = sc.deliveries[i];
      ++totals.deliveries;
      for (const Event& e : b.events)
        totals.whole_io_calls += (e.flags & wire::kEventFlagCompleteValue) != 0;
      ++totals.paths[path.deliver(b, i, seed)];
      oracle.ingest(b, b.sent_at_ns);
      if (next_tick >= sc.ticks_after.size() || sc.ticks_after[next_tick] != i) continue;
      ++next_tick;
      now = b.sent_at_ns;
    }
    oracle.settle(now);
    auto snap = engine.tick(now);
    const RankSnapshot* r = find_rank(*snap, "prop", 0);
    if (r == nullptr) {
      ADD_FAILURE() << "seed " << seed << ": rank missing";
      return false;
    }
    const auto want = oracle.windows();
    for (std::size_t w = 0; w < want.size(); ++w) {
      const std::string d = diff(r->windows[w], want[w]);
      if (!d.empty()) {
        ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ", window "
                      << want[w].window_ns << ": " << d;
        return false;
      }
    }
    if (const std::string d = diff_top_files(r->top_files, oracle.top_files()); !d.empty()) {
      ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ": top files: " << d;
      return false;
    }
    for (const TopFiles& top : r->top_files) {
      totals.top_files += top.files.size();
      totals.top_files_other_ops += top.other.ops;
      for (const FileIoEntry& f : top.files)
        totals.unknown_files += f.path == "<unknown file>";
    }
    if (const std::string d = diff_top_kernels(r->top_kernels, oracle.top_kernels()); !d.empty()) {
      ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ": top kernels: " << d;
      return false;
    }
    for (const TopKernels& top : r->top_kernels) {
      totals.top_kernels += top.kernels.size();
      totals.top_kernels_other_count += top.other.count;
    }
    if (r->counters.late_events != oracle.late_events() ||
        r->counters.unpaired_events != oracle.unpaired_events()) {
      ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ": late "
                    << r->counters.late_events << "/" << oracle.late_events() << " unpaired "
                    << r->counters.unpaired_events << "/" << oracle.unpaired_events();
      return false;
    }
    if (const std::string d =
            check_counters(r->finalized, oracle.finalized(), previous ? &*previous : nullptr);
        !d.empty()) {
      ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ": " << d;
      return false;
    }
    if (previous && r->finalized.data_stall_ns > previous->data_stall_ns) ++totals.stall_increases;
    previous = r->finalized;
    ++totals.ticks;
    for (const WindowMetrics& w : r->windows)
      ++totals.causes[static_cast<std::size_t>(w.cause)];
    if (after_all && r->state == RankState::kFinished) {
      // A finished rank's counters, a lateness after its end, hold its
      // whole run: the totals window.
      const WindowMetrics& all = r->windows.back();
      const FinalizedTotals& f = r->finalized;
      // (Device busy and data stall are counted with the signal in force at
      // each horizon move, so only the signal-free sums are compared.)
      const auto seconds = [](std::int64_t ns) { return static_cast<double>(ns) / 1e9; };
      if (f.steps != all.steps || f.wall_ns != all.end_ns - all.start_ns ||
          std::abs(seconds(f.fetch_ns) - all.fetch_seconds) > 1e-9 ||
          std::abs(seconds(f.compute_ns) - all.compute_seconds) > 1e-9) {
        ADD_FAILURE() << "seed " << seed << ": a finished rank's counters (steps " << f.steps
                      << ", wall " << f.wall_ns << " ns, fetch " << f.fetch_ns << " ns, compute "
                      << f.compute_ns << " ns) are not its whole run (steps " << all.steps
                      << ", wall " << all.end_ns - all.start_ns << " ns, fetch "
                      << all.fetch_seconds << " s, compute " << all.compute_seconds << " s)";
        return false;
      }
      ++totals.settled;
    }
    if (after_all) {
      totals.late += r->counters.late_events;
      totals.unpaired += r->counters.unpaired_events;
      totals.steps += r->windows.back().steps;
      totals.finalized_steps += r->finalized.steps;
      totals.finalized_read_ops += r->finalized.read_ops;
      totals.finalized_write_ops += r->finalized.write_ops;
    }
  }
  return true;
}

// STALLWATCH_PROPERTY_SCALE=N runs N times as many cases of each kind (for
// a longer soak after an engine change); 1 by default.
int case_scale() {
  const char* env = std::getenv("STALLWATCH_PROPERTY_SCALE");
  const long n = env != nullptr ? std::strtol(env, nullptr, 10) : 1;
  return n >= 1 && n <= 1000 ? static_cast<int>(n) : 1;
}

}  // namespace

const std::vector<PropertyKind>& property_kinds() {
  static const std::vector<PropertyKind> kinds = [] {
    std::vector<PropertyKind> k;
    ScenarioOptions o;
    k.push_back({"in order", 1000, 600, o});
    o.max_delay_us = 4000;
    k.push_back({"shuffled", 20000, 600, o});
    o.max_delay_us = 3000;
    o.late_batch_share = 0.15;
    k.push_back({"late", 40000, 400, o});
    o = ScenarioOptions{};
    o.max_delay_us = 3000;
    o.reorder_within_source = true;
    k.push_back({"reordered within a process", 60000, 300, o});
    o = ScenarioOptions{};
    o.max_sources = 5;
    o.max_threads = 4;
    o.max_delay_us = 2000;
    k.push_back({"crowded", 80000, 250, o});
    // The shortest history the config allows (longest window + lateness +
    // one cell), so cells and steps fall out of it, and pauses longer than
    // the history, so the horizon jumps straight past it.
    o = ScenarioOptions{};
    o.max_delay_us = 2000;
    o.pause_us = 50'000;
    k.push_back({"short history, pauses", 100000, 150, o, ms(36)});
    o.pause_us = 0;
    k.push_back({"short history", 110000, 150, o, ms(36)});
    o = ScenarioOptions{};
    o.max_delay_us = 2000;
    o.lost_batch_share = 0.1;
    k.push_back({"lost batches", 120000, 200, o});
    return k;
  }();
  return kinds;
}

std::string property_kind_id(const PropertyKind& kind) {
  std::string id;
  bool upper = true;
  for (const char c : kind.name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = true;
      continue;
    }
    id += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return id;
}

PropertyTotals run_property_cases(const PropertyKind& kind, DeliveryPath& path, double scale) {
  const int count = std::max(1, static_cast<int>(kind.count * scale)) * case_scale();
  PropertyTotals totals;
  int failures = 0;
  for (int i = 0; i < count && failures < 3; ++i) {
    if (!run_case(kind.first_seed + static_cast<std::uint32_t>(i), kind.options, path, totals,
                  kind.history_ns)) {
      ++failures;
    }
  }
  std::string paths;
  for (const auto& [name, n] : totals.paths)
    paths += (paths.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  std::printf(
      "[ %s ] %d cases, %zu deliveries (%s), %zu ticks compared, %llu late, %llu unpaired, "
      "%llu steps (%llu finalized), %zu finished ranks final to their end, data stall counter grew "
      "at %zu ticks, causes: %zu storage, "
      "%zu preprocessing, %zu unknown, finalized I/O calls: %lld read, %lld write, %zu I/O "
      "calls delivered whole, %zu top files compared (%zu unnamed), %lld calls in \"other\", "
      "%zu top kernels compared, %lld pieces of device work in \"other\"\n",
      kind.name.c_str(), count, totals.deliveries, paths.c_str(), totals.ticks,
      static_cast<unsigned long long>(totals.late),
      static_cast<unsigned long long>(totals.unpaired),
      static_cast<unsigned long long>(totals.steps),
      static_cast<unsigned long long>(totals.finalized_steps), totals.settled,
      totals.stall_increases, totals.causes[static_cast<std::size_t>(Cause::kStorage)],
      totals.causes[static_cast<std::size_t>(Cause::kPreprocessing)],
      totals.causes[static_cast<std::size_t>(Cause::kUnknown)],
      static_cast<long long>(totals.finalized_read_ops),
      static_cast<long long>(totals.finalized_write_ops), totals.whole_io_calls, totals.top_files,
      totals.unknown_files, static_cast<long long>(totals.top_files_other_ops), totals.top_kernels,
      static_cast<long long>(totals.top_kernels_other_count));
  EXPECT_GT(totals.ticks, static_cast<std::size_t>(count));
  EXPECT_GT(totals.settled, 0U) << "no case ended with a finished rank";
  for (const Cause c : {Cause::kStorage, Cause::kPreprocessing, Cause::kUnknown})
    EXPECT_GT(totals.causes[static_cast<std::size_t>(c)], 0u) << to_string(c);
  EXPECT_GT(totals.stall_increases, static_cast<std::size_t>(count));
  EXPECT_GT(totals.finalized_read_ops, 0);
  EXPECT_GT(totals.finalized_write_ops, 0);
  EXPECT_GT(totals.whole_io_calls, 0u);
  EXPECT_GT(totals.top_files, 0u);
  EXPECT_GT(totals.top_files_other_ops, 0);
  EXPECT_GT(totals.unknown_files, 0u);
  EXPECT_GT(totals.top_kernels, 0u);
  EXPECT_GT(totals.top_kernels_other_count, 0);
  return totals;
}

}  // namespace stallwatch::collector::testing
