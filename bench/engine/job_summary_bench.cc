// SPDX-License-Identifier: MIT
// The per-tick cost of forming a job from its ranks, which Engine::tick()
// does for every job and a collector tree's head does again over the ranks of
// all its nodes, every tick:
//   BM_SummarizeJob/N        summarize_job_with_peers() over a job of N ranks
//                            (64, 512, 4096: the last is the tree bench's 64
//                            nodes x 64 ranks in one job);
//   BM_AggregateJobWindow/N  its part that forms one job window (mean and max
//                            of every metric over the ranks' rows).
// Each rank has the default windows (10 s, 60 s, 300 s, and the total) with
// every metric set, some NaN, as a live rank's are. Each RankSnapshot's rows
// are their own allocation, as in a snapshot; the ranks' rows together are
// far larger than a core's cache, which is what the head works through.
// Figures are CPU time per call (Google Benchmark).

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/engine_config.h"
#include "engine/job_summary.h"
#include "engine/metric_fields.h"
#include "engine/snapshot.h"
#include "job_aggregate.h"

namespace stallwatch::bench {
namespace {

using collector::EngineConfig;
using collector::JobSnapshot;
using collector::MetricField;
using collector::RankSnapshot;
using collector::WindowMetrics;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kNow = 1'700'000'000 * kSecond;
constexpr std::size_t kWindows = 4;  // 10 s, 60 s, 300 s and the total

JobSnapshot make_job(std::size_t ranks) {
  std::mt19937_64 rng(ranks);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  JobSnapshot job;
  job.job = "bench";
  const std::int64_t windows_ns[kWindows] = {10 * kSecond, 60 * kSecond, 300 * kSecond,
                                             3600 * kSecond};
  for (std::size_t r = 0; r < ranks; ++r) {
    RankSnapshot& rank = job.ranks.emplace_back();
    rank.job = job.job;
    rank.rank = static_cast<std::int32_t>(r);
    rank.host = "node-" + std::to_string(r / 64);
    rank.start_ns = kNow - 3600 * kSecond;
    rank.end_ns = kNow;
    for (std::size_t w = 0; w < kWindows; ++w) {
      WindowMetrics& m = rank.windows.emplace_back();
      m.window_ns = windows_ns[w];
      m.start_ns = kNow - windows_ns[w];
      m.end_ns = kNow;
      for (const MetricField& f : collector::metric_fields()) {
        if (f.is_count()) {
          m.*f.count = rng() % 100000;
        } else {
          m.*f.value = unit(rng) < 0.1 ? std::numeric_limits<double>::quiet_NaN() : unit(rng);
        }
      }
      m.wall_seconds = static_cast<double>(windows_ns[w]) / kSecond;
      m.steps = 1 + rng() % 1000;
      m.step_seconds_p50 = 0.1 + unit(rng);
    }
  }
  return job;
}

void BM_SummarizeJob(benchmark::State& state) {
  JobSnapshot job = make_job(static_cast<std::size_t>(state.range(0)));
  const EngineConfig config;
  for (auto _ : state) {
    collector::summarize_job_with_peers(job, kWindows, 1, config);
    benchmark::DoNotOptimize(job.windows.data());
  }
  state.counters["ranks"] = static_cast<double>(job.ranks.size());
}
BENCHMARK(BM_SummarizeJob)->Arg(64)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_AggregateJobWindow(benchmark::State& state) {
  const JobSnapshot job = make_job(static_cast<std::size_t>(state.range(0)));
  const EngineConfig config;
  for (auto _ : state) {
    auto window = collector::detail::aggregate_job_window(job.ranks, 2, config.verdict);
    benchmark::DoNotOptimize(window);
  }
}
BENCHMARK(BM_AggregateJobWindow)->Arg(64)->Arg(512)->Arg(4096)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stallwatch::bench

BENCHMARK_MAIN();
