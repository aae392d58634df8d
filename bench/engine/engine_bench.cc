// SPDX-License-Identifier: MIT
// Engine benchmarks over simulated time (nothing sleeps):
//   BM_Ingest/0  ns per event for in-order batches of a typical training loop
//   BM_Ingest/1  the same with every worker batch arriving one slice (100 ms) late
//   BM_Ingest/2  in order, with the kernels as CUPTI sends them: each named, with
//                a launch call joined to it by correlation id (top kernels, launches)
//   BM_Scale     256 ranks x 10k events/s for 10 simulated minutes, a tick every
//                500 ms: tick time p50/p99/max, approx_memory_bytes and RSS at the
//                first tick, once warm (120 s: timeline, step history and windows
//                full) and at the end (STALLWATCH_BENCH_RANKS / _SECONDS override).
//   BM_TickPeers/N  the cost of matching collectives across ranks at tick time:
//                the same ranks (STALLWATCH_BENCH_RANKS) for 60 simulated seconds
//                with N comm calls per 10 ms step on every rank (their arrivals
//                staggered by rank), tick p50/p99 in thread CPU time once the
//                timeline is full (from 30 s), side by side with N = 0; the ratio
//                is to N = 0.
// Ingest cost is reported in thread CPU time, which on a shared machine is
// what the engine costs; wall time is reported next to it.
// Ends with one JSON line of headline figures.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "training_load.h"

namespace stallwatch::bench {
namespace {

using collector::Engine;
using collector::EngineConfig;
using collector::NameTable;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Headline {
  double ingest_ns[3] = {kNaN, kNaN, kNaN};
  int scale_ranks = 0;
  double scale_seconds = 0;
  double scale_ingest_ns = kNaN;
  double tick_p50_ms = kNaN;
  double tick_p99_ms = kNaN;
  double tick_max_ms = kNaN;
  double tick_cpu_p99_ms = kNaN;
  double tick_cpu_max_ms = kNaN;
  double memory_start_mb = kNaN;
  double memory_warm_mb = kNaN;
  double memory_end_mb = kNaN;
  double rss_start_mb = kNaN;
  double rss_warm_mb = kNaN;
  double rss_end_mb = kNaN;
  // BM_TickPeers, by comm calls per step (0, 1, 4).
  double peers_tick_p50_ms[3] = {kNaN, kNaN, kNaN};
  double peers_tick_p99_ms[3] = {kNaN, kNaN, kNaN};
} g_headline;

double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtol(v, nullptr, 10) : fallback;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of this thread: on a shared, loaded machine it is what the engine
// itself costs, where wall time also counts the waits for a core.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Spent {
  double wall = 0;
  double cpu = 0;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// Feeds slice `s` of `on_time` and, when `late` is given, the worker batches of
// slice s - 1 from it (main batches come from `on_time` only). Returns the time
// spent inside Engine::ingest.
Spent feed(Engine& engine, TrainingLoad& on_time, TrainingLoad* late, std::int64_t s,
           std::uint64_t& events) {
  const auto& now = on_time.slice(s);
  const std::vector<collector::DecodedBatch>* lagging =
      late != nullptr && s > 0 ? &late->slice(s - 1) : nullptr;
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  for (const auto& b : now) {
    if (lagging != nullptr && b.source.role == stallwatch::ProcessRole::kWorker) continue;
    engine.ingest(b, b.sent_at_ns);
    events += b.events.size();
  }
  if (lagging != nullptr) {
    for (const auto& b : *lagging) {
      if (b.source.role != stallwatch::ProcessRole::kWorker) continue;
      engine.ingest(b, now.front().sent_at_ns);
      events += b.events.size();
    }
  }
  return Spent{seconds_since(t0), thread_cpu_seconds() - cpu0};
}

void BM_Ingest(benchmark::State& state) {
  const bool delayed = state.range(0) == 1;
  NameTable names;
  Engine engine(EngineConfig{}, names);
  LoadShape shape;
  shape.ranks = 8;
  shape.launches = state.range(0) == 2;
  TrainingLoad load(shape, names, kT0);
  TrainingLoad lagging(shape, names, kT0);
  std::int64_t slice = 0;
  std::uint64_t warm = 0;
  for (; slice < 40; ++slice)
    feed(engine, load, delayed ? &lagging : nullptr, slice, warm);
  std::uint64_t events = 0;
  Spent spent;
  for (auto _ : state) {
    const Spent s = feed(engine, load, delayed ? &lagging : nullptr, slice, events);
    state.SetIterationTime(s.cpu);
    spent.wall += s.wall;
    spent.cpu += s.cpu;
    if (++slice % 5 == 0) benchmark::DoNotOptimize(engine.tick(load.slice_end_ns(slice)));
  }
  const double ns = spent.cpu * 1e9 / static_cast<double>(events);
  state.counters["ns_per_event_cpu"] = ns;
  state.counters["ns_per_event_wall"] = spent.wall * 1e9 / static_cast<double>(events);
  state.counters["events"] = static_cast<double>(events);
  g_headline.ingest_ns[state.range(0)] = ns;
}
BENCHMARK(BM_Ingest)->Arg(0)->Arg(1)->Arg(2)->UseManualTime()->MinTime(3.0)->Unit(
    benchmark::kMicrosecond);

void BM_Scale(benchmark::State& state) {
  const int ranks = static_cast<int>(env_or("STALLWATCH_BENCH_RANKS", 256));
  const long seconds = env_or("STALLWATCH_BENCH_SECONDS", 600);
  for (auto _ : state) {
    NameTable names;
    Engine engine(EngineConfig{}, names);
    LoadShape shape;
    shape.ranks = ranks;
    TrainingLoad load(shape, names, kT0);
    const std::int64_t slices = seconds * 1'000'000'000 / shape.slice_ns;
    const std::int64_t tick_every = 500'000'000 / shape.slice_ns;
    std::vector<double> tick_ms;
    std::uint64_t events = 0;
    Spent ingest;
    std::vector<double> tick_cpu_ms;
    double memory_start = kNaN;
    double rss_start = kNaN;
    double memory_end = kNaN;
    for (std::int64_t s = 0; s < slices; ++s) {
      const Spent fed = feed(engine, load, nullptr, s, events);
      ingest.wall += fed.wall;
      ingest.cpu += fed.cpu;
      if ((s + 1) % tick_every != 0) continue;
      const double cpu0 = thread_cpu_seconds();
      const auto t0 = Clock::now();
      auto snap = engine.tick(load.slice_end_ns(s));
      tick_ms.push_back(seconds_since(t0) * 1e3);
      tick_cpu_ms.push_back((thread_cpu_seconds() - cpu0) * 1e3);
      memory_end = static_cast<double>(snap->stats.approx_memory_bytes) / 1048576.0;
      if (std::isnan(memory_start)) {
        memory_start = memory_end;
        rss_start = rss_mb();
      }
      if (tick_ms.size() == 240) {
        g_headline.memory_warm_mb = memory_end;
        g_headline.rss_warm_mb = rss_mb();
      }
      if (tick_ms.size() % 120 == 0) {
        std::fprintf(stderr, "  %5.0f s simulated: tick %.2f ms, approx %.1f MB, rss %.1f MB\n",
                     static_cast<double>(s + 1) * 0.1, tick_ms.back(), memory_end, rss_mb());
      }
    }
    g_headline.scale_ranks = ranks;
    g_headline.scale_seconds = static_cast<double>(seconds);
    g_headline.scale_ingest_ns = ingest.cpu * 1e9 / static_cast<double>(events);
    g_headline.tick_cpu_p99_ms = percentile(tick_cpu_ms, 0.99);
    g_headline.tick_cpu_max_ms = *std::max_element(tick_cpu_ms.begin(), tick_cpu_ms.end());
    g_headline.tick_p50_ms = percentile(tick_ms, 0.50);
    g_headline.tick_p99_ms = percentile(tick_ms, 0.99);
    g_headline.tick_max_ms = *std::max_element(tick_ms.begin(), tick_ms.end());
    g_headline.memory_start_mb = memory_start;
    g_headline.memory_end_mb = memory_end;
    g_headline.rss_start_mb = rss_start;
    g_headline.rss_end_mb = rss_mb();
    state.counters["events"] = static_cast<double>(events);
    state.counters["ingest_ns_per_event_cpu"] = g_headline.scale_ingest_ns;
    state.counters["ingest_ns_per_event_wall"] = ingest.wall * 1e9 / static_cast<double>(events);
    state.counters["tick_cpu_p99_ms"] = g_headline.tick_cpu_p99_ms;
    state.counters["tick_cpu_max_ms"] = g_headline.tick_cpu_max_ms;
    state.counters["tick_p50_ms"] = g_headline.tick_p50_ms;
    state.counters["tick_p99_ms"] = g_headline.tick_p99_ms;
    state.counters["tick_max_ms"] = g_headline.tick_max_ms;
    state.counters["approx_mb_start"] = memory_start;
    state.counters["approx_mb_warm"] = g_headline.memory_warm_mb;
    state.counters["rss_mb_warm"] = g_headline.rss_warm_mb;
    state.counters["approx_mb_end"] = memory_end;
    state.counters["rss_mb_start"] = g_headline.rss_start_mb;
    state.counters["rss_mb_end"] = g_headline.rss_end_mb;
  }
}
BENCHMARK(BM_Scale)->Iterations(1)->Unit(benchmark::kSecond);

constexpr int kPeerCalls[] = {0, 1, 4};

void BM_TickPeers(benchmark::State& state) {
  const auto index = static_cast<std::size_t>(state.range(0));
  const int ranks = static_cast<int>(env_or("STALLWATCH_BENCH_RANKS", 256));
  for (auto _ : state) {
    NameTable names;
    Engine engine(EngineConfig{}, names);
    LoadShape shape;
    shape.ranks = ranks;
    shape.collectives = kPeerCalls[index];
    TrainingLoad load(shape, names, kT0);
    const std::int64_t slices = 60'000'000'000 / shape.slice_ns;
    const std::int64_t warm = 30'000'000'000 / shape.slice_ns;
    const std::int64_t tick_every = 500'000'000 / shape.slice_ns;
    std::vector<double> tick_ms;
    std::uint64_t events = 0;
    double peer_wait = 0;
    for (std::int64_t s = 0; s < slices; ++s) {
      feed(engine, load, nullptr, s, events);
      if ((s + 1) % tick_every != 0) continue;
      const double cpu0 = thread_cpu_seconds();
      auto snap = engine.tick(load.slice_end_ns(s));
      if (s >= warm) tick_ms.push_back((thread_cpu_seconds() - cpu0) * 1e3);
      if (!snap->jobs.empty() && !snap->jobs.front().windows.empty())
        peer_wait = snap->jobs.front().windows.front().max.peer_wait_seconds;
    }
    g_headline.peers_tick_p50_ms[index] = percentile(tick_ms, 0.50);
    g_headline.peers_tick_p99_ms[index] = percentile(tick_ms, 0.99);
    state.counters["comm_calls_per_step"] = shape.collectives;
    state.counters["events"] = static_cast<double>(events);
    state.counters["tick_cpu_p50_ms"] = g_headline.peers_tick_p50_ms[index];
    state.counters["tick_cpu_p99_ms"] = g_headline.peers_tick_p99_ms[index];
    state.counters["tick_cpu_p99_ratio_to_none"] =
        g_headline.peers_tick_p99_ms[index] / g_headline.peers_tick_p99_ms[0];
    // Proves the matching ran: the job's largest peer wait in its first window.
    state.counters["peer_wait_s_max"] = peer_wait;
  }
}
BENCHMARK(BM_TickPeers)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const auto& h = stallwatch::bench::g_headline;
  auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
  std::printf(
      "{\"bench\":\"engine\",\"ingest_cpu_ns_per_event\":%s,"
      "\"ingest_cpu_ns_per_event_workers_late\":%s,\"ingest_cpu_ns_per_event_launches\":%s,"
      "\"scale_ranks\":%d,"
      "\"scale_simulated_seconds\":%s,\"scale_ingest_cpu_ns_per_event\":%s,\"tick_ms_p50\":%s,"
      "\"tick_ms_p99\":%s,\"tick_ms_max\":%s,\"tick_cpu_ms_p99\":%s,\"tick_cpu_ms_max\":%s,"
      "\"approx_memory_mb_start\":%s,"
      "\"approx_memory_mb_warm\":%s,\"approx_memory_mb_end\":%s,\"rss_mb_start\":%s,"
      "\"rss_mb_warm\":%s,\"rss_mb_end\":%s,\"peers_tick_cpu_ms_p50\":[%s,%s,%s],"
      "\"peers_tick_cpu_ms_p99\":[%s,%s,%s]}\n",
      num(h.ingest_ns[0]).c_str(), num(h.ingest_ns[1]).c_str(), num(h.ingest_ns[2]).c_str(),
      h.scale_ranks, num(h.scale_seconds).c_str(), num(h.scale_ingest_ns).c_str(),
      num(h.tick_p50_ms).c_str(), num(h.tick_p99_ms).c_str(), num(h.tick_max_ms).c_str(),
      num(h.tick_cpu_p99_ms).c_str(), num(h.tick_cpu_max_ms).c_str(),
      num(h.memory_start_mb).c_str(), num(h.memory_warm_mb).c_str(), num(h.memory_end_mb).c_str(),
      num(h.rss_start_mb).c_str(), num(h.rss_warm_mb).c_str(), num(h.rss_end_mb).c_str(),
      num(h.peers_tick_p50_ms[0]).c_str(), num(h.peers_tick_p50_ms[1]).c_str(),
      num(h.peers_tick_p50_ms[2]).c_str(), num(h.peers_tick_p99_ms[0]).c_str(),
      num(h.peers_tick_p99_ms[1]).c_str(), num(h.peers_tick_p99_ms[2]).c_str());
  return 0;
}
