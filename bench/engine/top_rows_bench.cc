// SPDX-License-Identifier: MIT
// The per-tick cost of a rank's top kernels by device time and top files by
// I/O time, before and after the running window sums, side by
// side in one run over the same trackers:
//   BM_TopKernelsTick/N  N ranks (8, 64, 512), each with kKernelNames kernel
//                names whose device time is drawn per tick (so each cell keeps
//                its top top_kernels_per_cell names and an "other" row);
//   BM_TopFilesTick/N    the same ranks, each reading kFiles files from three
//                processes (two file ids name each path, as a forked worker
//                reads what its parent opened);
// with the default windows (10 s, 60 s, 300 s at 1 s resolution), lateness
// (2 s) and history, a tick every 500 ms for 330 simulated seconds. Once the
// 300 s window is full, each tick times for every rank (all windows):
//   merged   merge_top_kernels / merge_top_files: every row of the windows'
//            cells merged (the code before);
//   running  running_top_kernels / running_top_files: the running sums slid
//            to the tick, the pending rows laid over them;
// and checks that both give the same result, field by field (`mismatches`
// must be 0; checked every 10 s before, too). It also times finalizing the
// cells (finalize and trim) of a tracker with the running windows against a
// twin without them, fed the same work: what the running sums add there.
// Figures are medians of thread CPU time per tick for all ranks, which on a
// shared machine is what the code costs. Ends with one JSON line.

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
#include <string_view>
#include <vector>

#include "engine/engine_config.h"
#include "engine/name_table.h"
#include "file_io_tracker.h"
#include "kernel_tracker.h"
#include "top_files.h"
#include "top_kernels.h"

namespace stallwatch::bench {
namespace {

using collector::EngineConfig;
using collector::NameId;
using collector::NameTable;
using collector::detail::FileIoTracker;
using collector::detail::FileKey;
using collector::detail::IoDirection;
using collector::detail::KernelTracker;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kSecond;
constexpr std::int64_t kTickNs = kSecond / 2;
constexpr std::int64_t kSimulated = 330 * kSecond;
constexpr std::int64_t kWarm = 300 * kSecond;  // the longest window full
constexpr int kKernelNames = 40;
constexpr int kFiles = 48;              // paths; each read through two file ids
constexpr int kCallsPerKeyPerTick = 3;  // per kernel name or file id
constexpr int kRankCounts[] = {8, 64, 512};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Figures {
  double merged_us[3] = {kNaN, kNaN, kNaN};
  double running_us[3] = {kNaN, kNaN, kNaN};
  double finalize_plain_us[3] = {kNaN, kNaN, kNaN};
  double finalize_running_us[3] = {kNaN, kNaN, kNaN};
};
Figures g_kernels;
Figures g_files;

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

std::vector<std::int64_t> window_cells(const EngineConfig& c) {
  std::vector<std::int64_t> cells;
  for (std::int64_t w : c.windows_ns)
    cells.push_back(w / c.resolution_ns);
  return cells;
}

// One rank: the same work into a tracker with the running windows and a twin
// without them (what finalizing cost before).
template <class Tracker>
struct Rank {
  Rank(Tracker with, Tracker without) : running(std::move(with)), plain(std::move(without)) {}
  Tracker running;
  Tracker plain;
};

// Drives `ranks` ranks of Tracker for kSimulated and fills `out[index]`.
// add(tracker, tick_start, rng_value) adds a tick's work (the same to both
// twins); running(tracker, kt, pending_from) and merged(...) read all windows.
template <class Tracker, class Make, class Add, class Running, class Merged>
void drive(benchmark::State& state, std::size_t index, Figures& out, Make make, Add add,
           Running running, Merged merged) {
  const int ranks = kRankCounts[index];
  const EngineConfig config;
  const std::int64_t res = config.resolution_ns;
  const auto history = static_cast<std::int64_t>(config.history_ns / res);
  std::vector<std::unique_ptr<Rank<Tracker>>> all;
  for (int r = 0; r < ranks; ++r)
    all.push_back(std::make_unique<Rank<Tracker>>(make(config, true), make(config, false)));
  std::mt19937_64 rng(42);
  std::vector<double> merged_us, running_us, plain_fin_us, running_fin_us;
  std::int64_t cell_end = kT0 / res;  // the history's end, as WindowFinalizer keeps it
  std::uint64_t mismatches = 0;
  for (std::int64_t t = kT0; t < kT0 + kSimulated; t += kTickNs) {
    for (auto& rank : all)
      add(*rank, t, rng);
    const std::int64_t now = t + kTickNs;
    const std::int64_t horizon_cell = (now - config.lateness_ns) / res;
    double plain_fin = 0, running_fin = 0;
    if (horizon_cell > cell_end) {
      const std::int64_t keep_from = std::max(cell_end, horizon_cell - history);
      // Which twin goes first alternates, so neither always finds the other's
      // work in the caches.
      const bool plain_first = (t / kTickNs) % 2 == 0;
      for (auto& rank : all) {
        for (int pass = 0; pass < 2; ++pass) {
          const bool plain = (pass == 0) == plain_first;
          Tracker& tracker = plain ? rank->plain : rank->running;
          const double c0 = thread_cpu_seconds();
          tracker.finalize(cell_end, horizon_cell, keep_from);
          tracker.trim(horizon_cell - history);
          (plain ? plain_fin : running_fin) += thread_cpu_seconds() - c0;
        }
      }
      cell_end = horizon_cell;
    }
    const std::int64_t kt = now / res;
    // The running sums must slide at every tick; both paths are compared at
    // every tick once warm and every 10 s before.
    const bool warm = t >= kT0 + kWarm;
    const bool compare = warm || (t - kT0) % (10 * kSecond) == 0;
    double merged_s = 0, running_s = 0;
    for (auto& rank : all) {
      const double c0 = thread_cpu_seconds();
      const auto after = running(rank->running, kt, cell_end);
      const double c1 = thread_cpu_seconds();
      running_s += c1 - c0;
      benchmark::DoNotOptimize(after);
      if (!compare) continue;
      const auto before = merged(rank->running, kt, cell_end);
      merged_s += thread_cpu_seconds() - c1;
      benchmark::DoNotOptimize(before);
      if (before != after) ++mismatches;
    }
    if (!warm) continue;
    merged_us.push_back(merged_s * 1e6);
    running_us.push_back(running_s * 1e6);
    plain_fin_us.push_back(plain_fin * 1e6);
    running_fin_us.push_back(running_fin * 1e6);
  }
  out.merged_us[index] = median(merged_us);
  out.running_us[index] = median(running_us);
  out.finalize_plain_us[index] = median(plain_fin_us);
  out.finalize_running_us[index] = median(running_fin_us);
  state.counters["ranks"] = ranks;
  state.counters["tick_merged_us"] = out.merged_us[index];
  state.counters["tick_running_us"] = out.running_us[index];
  state.counters["per_rank_merged_us"] = out.merged_us[index] / ranks;
  state.counters["per_rank_running_us"] = out.running_us[index] / ranks;
  state.counters["finalize_plain_us"] = out.finalize_plain_us[index];
  state.counters["finalize_running_us"] = out.finalize_running_us[index];
  state.counters["mismatches"] = static_cast<double>(mismatches);
}

void BM_TopKernelsTick(benchmark::State& state) {
  for (auto _ : state) {
    NameTable names;
    std::vector<NameId> kernel_names;
    for (int k = 0; k < kKernelNames; ++k)
      kernel_names.push_back(
          names.intern("void at::native::kernel_" + std::to_string(k) + "<float, 128>"));
    drive<KernelTracker>(
        state, static_cast<std::size_t>(state.range(0)), g_kernels,
        [](const EngineConfig& c, bool with_windows) {
          return KernelTracker(c.resolution_ns, c.top_kernels_per_cell,
                               with_windows ? window_cells(c) : std::vector<std::int64_t>{});
        },
        [&](Rank<KernelTracker>& rank, std::int64_t t, std::mt19937_64& rng) {
          for (NameId name : kernel_names) {
            const auto dur = static_cast<std::int64_t>(rng() % 200'000);
            for (int i = 0; i < kCallsPerKeyPerTick; ++i) {
              const std::int64_t end = t + kTickNs / kCallsPerKeyPerTick * i + 1000;
              rank.running.add(end, name, dur);
              rank.plain.add(end, name, dur);
            }
          }
        },
        [&](KernelTracker& k, std::int64_t kt, std::int64_t from) {
          return collector::detail::running_top_kernels(k, kt, from, names);
        },
        [&](const KernelTracker& k, std::int64_t kt, std::int64_t from) {
          return collector::detail::merge_top_kernels(k, kt, from, names);
        });
  }
}
BENCHMARK(BM_TopKernelsTick)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kSecond);

void BM_TopFilesTick(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<std::string> paths;
    for (int f = 0; f < kFiles; ++f)
      paths.push_back("/datasets/imagenet/train/shard-" + std::to_string(f) + ".tar");
    // File id f of source 0 and id f + kFiles of source 1 or 2 name path f.
    const collector::detail::FilePathOf path_of = [&](FileKey key) -> std::string_view {
      return paths[key.file % kFiles];
    };
    const EngineConfig config;
    drive<FileIoTracker>(
        state, static_cast<std::size_t>(state.range(0)), g_files,
        [](const EngineConfig& c, bool with_windows) {
          return FileIoTracker(c.resolution_ns, c.top_files_per_cell, c.top_files_total_files,
                               with_windows ? window_cells(c) : std::vector<std::int64_t>{});
        },
        [&](Rank<FileIoTracker>& rank, std::int64_t t, std::mt19937_64& rng) {
          for (int f = 0; f < 2 * kFiles; ++f) {
            const FileKey key{static_cast<std::uint16_t>(f < kFiles ? 0 : 1 + f % 2),
                              static_cast<std::uint32_t>(f)};
            const auto dur = static_cast<std::int64_t>(rng() % 2'000'000);
            for (int i = 0; i < kCallsPerKeyPerTick; ++i) {
              const std::int64_t end = t + kTickNs / kCallsPerKeyPerTick * i + 1000;
              rank.running.add(end, key, dur, IoDirection::kRead, 65536);
              rank.plain.add(end, key, dur, IoDirection::kRead, 65536);
            }
          }
        },
        [&](FileIoTracker& files, std::int64_t kt, std::int64_t from) {
          return collector::detail::running_top_files(files, kt, from, path_of,
                                                      config.top_files_shown);
        },
        [&](const FileIoTracker& files, std::int64_t kt, std::int64_t from) {
          return collector::detail::merge_top_files(files, kt, from, path_of,
                                                    config.top_files_shown);
        });
  }
}
BENCHMARK(BM_TopFilesTick)->DenseRange(0, 2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  using stallwatch::bench::Figures;
  auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
  auto three = [&](const double(&v)[3]) {
    return "[" + num(v[0]) + "," + num(v[1]) + "," + num(v[2]) + "]";
  };
  auto part = [&](const char* name, const Figures& f) {
    return std::string("\"") + name + "\":{\"tick_cpu_us_merged\":" + three(f.merged_us) +
           ",\"tick_cpu_us_running\":" + three(f.running_us) +
           ",\"finalize_cpu_us_plain\":" + three(f.finalize_plain_us) +
           ",\"finalize_cpu_us_running\":" + three(f.finalize_running_us) + "}";
  };
  std::printf("{\"bench\":\"top_rows\",\"ranks\":[8,64,512],%s,%s}\n",
              part("top_kernels", stallwatch::bench::g_kernels).c_str(),
              part("top_files", stallwatch::bench::g_files).c_str());
  return 0;
}
