// Property tests: thousands of random event sets; after every few deliveries
// every window metric of the engine must equal the brute-force oracle's.
// Seeds are fixed and printed on failure.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "oracle.h"
#include "scenario.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

EngineConfig property_config() {
  EngineConfig c = small_config();
  c.windows_ns = {ms(3), ms(10), ms(30)};  // 3 ms: shorter than the lateness, all pending
  c.max_steps_kept = 1 << 20;
  c.timeline_max_regions = 64;
  return c;
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b));
}

// Returns a description of the first difference, or "".
std::string diff(const WindowMetrics& e, const WindowMetrics& o) {
  std::ostringstream out;
  auto check = [&](const char* field, double x, double y) {
    if (out.tellp() == 0 && !same(x, y)) out << field << ": engine " << x << " oracle " << y;
  };
  check("start_ns", static_cast<double>(e.start_ns), static_cast<double>(o.start_ns));
  check("end_ns", static_cast<double>(e.end_ns), static_cast<double>(o.end_ns));
  check("wall_seconds", e.wall_seconds, o.wall_seconds);
  check("compute_seconds", e.compute_seconds, o.compute_seconds);
  check("app_io_seconds", e.app_io_seconds, o.app_io_seconds);
  check("io_seconds", e.io_seconds, o.io_seconds);
  check("fetch_seconds", e.fetch_seconds, o.fetch_seconds);
  check("comm_seconds", e.comm_seconds, o.comm_seconds);
  check("unoverlapped_app_io_seconds", e.unoverlapped_app_io_seconds,
        o.unoverlapped_app_io_seconds);
  check("unoverlapped_io_seconds", e.unoverlapped_io_seconds, o.unoverlapped_io_seconds);
  check("unoverlapped_compute_seconds", e.unoverlapped_compute_seconds,
        o.unoverlapped_compute_seconds);
  check("unoverlapped_all_io_seconds", e.unoverlapped_all_io_seconds,
        o.unoverlapped_all_io_seconds);
  check("device_busy_seconds", e.device_busy_seconds, o.device_busy_seconds);
  check("data_stall_seconds", e.data_stall_seconds, o.data_stall_seconds);
  check("overlap_ratio", e.overlap_ratio, o.overlap_ratio);
  check("device_idle_ratio", e.device_idle_ratio, o.device_idle_ratio);
  check("data_stall_ratio", e.data_stall_ratio, o.data_stall_ratio);
  check("steps", static_cast<double>(e.steps), static_cast<double>(o.steps));
  check("step_seconds_p50", e.step_seconds_p50, o.step_seconds_p50);
  check("step_seconds_p95", e.step_seconds_p95, o.step_seconds_p95);
  check("steps_per_second", e.steps_per_second, o.steps_per_second);
  check("samples_per_second", e.samples_per_second, o.samples_per_second);
  check("verdict", static_cast<double>(e.verdict), static_cast<double>(o.verdict));
  return out.str();
}

struct Totals {
  std::size_t deliveries = 0;
  std::size_t from_wire = 0;  // decoded and prepared in one pass, as in stallwatchd
  std::size_t compact = 0;    // of those, batches kept compact (regions ready)
  std::size_t ticks = 0;
  std::uint64_t late = 0;
  std::uint64_t unpaired = 0;
  std::uint64_t steps = 0;
};

// stallwatchd's path for `b`: encoded as a frame, its header decoded, its
// events decoded and prepared in one pass (a compact batch), then ingested.
// False, with nothing ingested, when the wire does not accept the batch (the
// scenarios allow times the protocol does not).
bool ingest_from_wire(const DecodedBatch& b, Engine& engine, const NameTable& names,
                      BatchEncoder& encoder, BatchDecoder& decoder, BatchPreparer& preparer,
                      DecodedBatch& batch, PreparedBatch& prepared) {
  const EncodedFrame frame = encoder.encode(b, names);
  if (!frame.ok()) return false;
  WireEvents events;
  if (decoder.decode_header(frame.bytes, batch, events)) return false;
  if (decoder.finish(events, preparer.prepare_wire(events, batch, prepared))) return false;
  engine.ingest(batch, b.sent_at_ns, &prepared);
  return true;
}

// Runs one scenario through the engine and the oracle; false on the first difference.
bool run_case(std::uint32_t seed, const ScenarioOptions& options, Totals& totals,
              std::int64_t history_ns) {
  EngineConfig config = property_config();
  if (history_ns > 0) config.history_ns = history_ns;
  NameTable names;
  Engine engine(config, names);
  Oracle oracle(config, names);
  const Scenario sc = make_scenario(seed, options, names);
  // A third of the deliveries go through the wire and the one-pass
  // preparer, as in stallwatchd; a third through a BatchPreparer (trace
  // replay); the rest take the engine's own path; all in the same run.
  BatchPreparer preparer = engine.make_preparer(nullptr);
  PreparedBatch prepared;
  BatchEncoder encoder;
  BatchDecoder decoder(names);
  DecodedBatch from_wire;
  std::size_t next_tick = 0;
  for (std::size_t i = 0; i < sc.deliveries.size(); ++i) {
    const DecodedBatch& b = sc.deliveries[i];
    ++totals.deliveries;
    const std::size_t path = (seed + i) % 3;
    if (path == 2 &&
        ingest_from_wire(b, engine, names, encoder, decoder, preparer, from_wire, prepared)) {
      ++totals.from_wire;
      totals.compact += prepared.compact();
    } else if (path != 0) {
      preparer.prepare(b, prepared);
      engine.ingest(b, b.sent_at_ns, &prepared);
    } else {
      engine.ingest(b, b.sent_at_ns);
    }
    oracle.ingest(b);
    if (next_tick >= sc.ticks_after.size() || sc.ticks_after[next_tick] != i) continue;
    ++next_tick;
    auto snap = engine.tick(b.sent_at_ns);
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
    if (r->counters.late_events != oracle.late_events() ||
        r->counters.unpaired_events != oracle.unpaired_events()) {
      ADD_FAILURE() << "seed " << seed << ", after delivery " << i << ": late "
                    << r->counters.late_events << "/" << oracle.late_events() << " unpaired "
                    << r->counters.unpaired_events << "/" << oracle.unpaired_events();
      return false;
    }
    ++totals.ticks;
    if (next_tick == sc.ticks_after.size()) {
      totals.late += r->counters.late_events;
      totals.unpaired += r->counters.unpaired_events;
      totals.steps += r->windows.back().steps;
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

void run_cases(std::uint32_t first_seed, int count, const ScenarioOptions& options,
               const char* what, std::int64_t history_ns = 0) {
  count *= case_scale();
  Totals totals;
  int failures = 0;
  for (int i = 0; i < count && failures < 3; ++i) {
    if (!run_case(first_seed + static_cast<std::uint32_t>(i), options, totals, history_ns)) {
      ++failures;
    }
  }
  std::printf(
      "[ %s ] %d cases, %zu deliveries (%zu through the wire, %zu compact), %zu ticks compared, "
      "%llu late, %llu unpaired, %llu steps\n",
      what, count, totals.deliveries, totals.from_wire, totals.compact, totals.ticks,
      static_cast<unsigned long long>(totals.late),
      static_cast<unsigned long long>(totals.unpaired),
      static_cast<unsigned long long>(totals.steps));
  EXPECT_GT(totals.ticks, static_cast<std::size_t>(count));
  // Nearly a third of the deliveries must have taken the daemon's path.
  EXPECT_GT(totals.from_wire * 4, totals.deliveries);
  EXPECT_GT(totals.compact * 2, totals.from_wire);
}

TEST(EngineProperty, InOrderDeliveryWithThreadBuffering) {
  ScenarioOptions o;
  run_cases(1000, 600, o, "in order");
}

TEST(EngineProperty, OutOfOrderAcrossProcessesWithinLateness) {
  ScenarioOptions o;
  o.max_delay_us = 4000;
  run_cases(20000, 600, o, "shuffled");
}

TEST(EngineProperty, LateDeliveriesAreClippedLikeTheOracle) {
  ScenarioOptions o;
  o.max_delay_us = 3000;
  o.late_batch_share = 0.15;
  run_cases(40000, 400, o, "late");
}

TEST(EngineProperty, BatchesOfOneProcessOutOfOrder) {
  ScenarioOptions o;
  o.max_delay_us = 3000;
  o.reorder_within_source = true;
  run_cases(60000, 300, o, "reordered within a process");
}

TEST(EngineProperty, ManyProcessesAndThreads) {
  ScenarioOptions o;
  o.max_sources = 5;
  o.max_threads = 4;
  o.max_delay_us = 2000;
  run_cases(80000, 250, o, "crowded");
}

// The shortest history the config allows (longest window + lateness + one
// cell), so cells and steps fall out of it, and pauses longer than the
// history, so the horizon jumps straight past it.
TEST(EngineProperty, ShortHistoryAndPauses) {
  ScenarioOptions o;
  o.max_delay_us = 2000;
  o.pause_us = 50'000;
  run_cases(100000, 150, o, "short history, pauses", ms(36));
  o.pause_us = 0;
  run_cases(110000, 150, o, "short history", ms(36));
}

}  // namespace
}  // namespace stallwatch::collector::testing
