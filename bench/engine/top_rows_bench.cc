// SPDX-License-Identifier: MIT
// The per-tick cost of a rank's top kernels by device time, before and after
// the running window sums (issue 25), side by side in one run over the same
// trackers:
//   BM_TopKernelsTick/N  N ranks (8, 64, 512), each with kKernelNames kernel
//                names of varying device time (so every cell keeps its top
//                top_kernels_per_cell names and an "other" row), the default
//                windows (10 s, 60 s, 300 s at 1 s resolution) and lateness
//                (2 s), a tick every 500 ms for 330 simulated seconds. Once
//                the 300 s window is full, each tick times, per rank and for
//                the three windows:
//                  merged   merge_top_kernels: every row of the window's
//                           cells merged by name (the code before);
//                  running  running_top_kernels: the running sums slid to
//                           the tick, the pending names laid over them;
//                and checks that both give the same top kernels, field by
//                field (`mismatches` must be 0). It also times what the
//                running sums add to finalizing the cells (finalize and trim
//                of a tracker with the windows, against a twin without).
// Figures are thread CPU time, which on a shared machine is what the code
// costs. Ends with one JSON line of headline figures.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "kernel_tracker.h"
#include "top_kernels.h"

namespace stallwatch::bench {
namespace {

using collector::EngineConfig;
using collector::NameId;
using collector::NameTable;
using collector::detail::KernelTracker;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kSecond;
constexpr std::int64_t kTickNs = kSecond / 2;
constexpr std::int64_t kSimulated = 330 * kSecond;
constexpr std::int64_t kWarm = 300 * kSecond;  // the longest window full
constexpr int kKernelNames = 40;
constexpr int kLaunchesPerNamePerTick = 3;  // 6 per second: 240 kernels/s per rank
constexpr int kRankCounts[] = {8, 64, 512};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Headline {
  double merged_us[3] = {kNaN, kNaN, kNaN};
  double running_us[3] = {kNaN, kNaN, kNaN};
  double finalize_plain_us[3] = {kNaN, kNaN, kNaN};
  double finalize_running_us[3] = {kNaN, kNaN, kNaN};
} g_headline;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One rank: the same work into a tracker with the running windows and a twin
// without them (what finalizing cost before).
struct Rank {
  Rank(const EngineConfig& c, const std::vector<std::int64_t>& window_cells)
      : running(c.resolution_ns, c.top_kernels_per_cell, window_cells),
        plain(c.resolution_ns, c.top_kernels_per_cell) {}
  KernelTracker running;
  KernelTracker plain;
};

void BM_TopKernelsTick(benchmark::State& state) {
  const auto index = static_cast<std::size_t>(state.range(0));
  const int ranks = kRankCounts[index];
  const EngineConfig config;
  const std::int64_t res = config.resolution_ns;
  std::vector<std::int64_t> window_cells;
  for (std::int64_t w : config.windows_ns)
    window_cells.push_back(w / res);
  const auto history = static_cast<std::int64_t>(config.history_ns / res);
  for (auto _ : state) {
    NameTable names;
    std::vector<NameId> kernel_names;
    for (int k = 0; k < kKernelNames; ++k)
      kernel_names.push_back(
          names.intern("void at::native::kernel_" + std::to_string(k) + "<float, 128>"));
    std::vector<std::unique_ptr<Rank>> all;
    for (int r = 0; r < ranks; ++r)
      all.push_back(std::make_unique<Rank>(config, window_cells));
    std::mt19937_64 rng(42);
    std::vector<double> merged_us, running_us, plain_fin_us, running_fin_us;
    std::int64_t cell_end = kT0 / res;  // the history's end, as WindowFinalizer keeps it
    std::uint64_t mismatches = 0;
    for (std::int64_t t = kT0; t < kT0 + kSimulated; t += kTickNs) {
      // The tick's work: every name, its duration drawn per tick, so the
      // names' order changes from cell to cell.
      for (auto& rank : all) {
        for (NameId name : kernel_names) {
          const auto dur = static_cast<std::int64_t>(rng() % 200'000);
          for (int i = 0; i < kLaunchesPerNamePerTick; ++i) {
            const std::int64_t end = t + (kTickNs / kLaunchesPerNamePerTick) * i + 1000;
            rank->running.add(end, name, dur);
            rank->plain.add(end, name, dur);
          }
        }
      }
      const std::int64_t now = t + kTickNs;
      const std::int64_t horizon_cell = (now - config.lateness_ns) / res;
      double plain_fin = 0, running_fin = 0;
      if (horizon_cell > cell_end) {
        const std::int64_t keep_from = std::max(cell_end, horizon_cell - history);
        for (auto& rank : all) {
          double c0 = thread_cpu_seconds();
          rank->plain.finalize(cell_end, horizon_cell, keep_from);
          rank->plain.trim(horizon_cell - history);
          double c1 = thread_cpu_seconds();
          rank->running.finalize(cell_end, horizon_cell, keep_from);
          rank->running.trim(horizon_cell - history);
          double c2 = thread_cpu_seconds();
          plain_fin += c1 - c0;
          running_fin += c2 - c1;
        }
        cell_end = horizon_cell;
      }
      const std::int64_t kt = now / res;
      // Both paths at every tick once warm (and every 10 s before, checked);
      // the running sums must slide at every tick.
      const bool warm = t >= kT0 + kWarm;
      const bool compare = warm || (t - kT0) % (10 * kSecond) == 0;
      double merged = 0, running = 0;
      for (auto& rank : all) {
        const double c0 = thread_cpu_seconds();
        const auto after =
            collector::detail::running_top_kernels(rank->running, kt, cell_end, names);
        const double c1 = thread_cpu_seconds();
        running += c1 - c0;
        benchmark::DoNotOptimize(after);
        if (!compare) continue;
        const auto before =
            collector::detail::merge_top_kernels(rank->running, kt, cell_end, names);
        merged += thread_cpu_seconds() - c1;
        benchmark::DoNotOptimize(before);
        if (before != after) ++mismatches;
      }
      if (!warm) continue;
      merged_us.push_back(merged * 1e6);
      running_us.push_back(running * 1e6);
      plain_fin_us.push_back(plain_fin * 1e6);
      running_fin_us.push_back(running_fin * 1e6);
    }
    g_headline.merged_us[index] = median(merged_us);
    g_headline.running_us[index] = median(running_us);
    g_headline.finalize_plain_us[index] = median(plain_fin_us);
    g_headline.finalize_running_us[index] = median(running_fin_us);
    const double per_rank = 1.0 / ranks;
    state.counters["ranks"] = ranks;
    state.counters["tick_merged_us"] = g_headline.merged_us[index];
    state.counters["tick_running_us"] = g_headline.running_us[index];
    state.counters["per_rank_merged_us"] = g_headline.merged_us[index] * per_rank;
    state.counters["per_rank_running_us"] = g_headline.running_us[index] * per_rank;
    state.counters["finalize_plain_us"] = g_headline.finalize_plain_us[index];
    state.counters["finalize_running_us"] = g_headline.finalize_running_us[index];
    state.counters["mismatches"] = static_cast<double>(mismatches);
  }
}
BENCHMARK(BM_TopKernelsTick)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const auto& h = stallwatch::bench::g_headline;
  auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
  auto three = [&](const double(&v)[3]) {
    return "[" + num(v[0]) + "," + num(v[1]) + "," + num(v[2]) + "]";
  };
  std::printf(
      "{\"bench\":\"top_rows\",\"ranks\":[8,64,512],\"top_kernels_tick_cpu_us_merged\":%s,"
      "\"top_kernels_tick_cpu_us_running\":%s,\"kernels_finalize_cpu_us_plain\":%s,"
      "\"kernels_finalize_cpu_us_running\":%s}\n",
      three(h.merged_us).c_str(), three(h.running_us).c_str(), three(h.finalize_plain_us).c_str(),
      three(h.finalize_running_us).c_str());
  return 0;
}
