// SPDX-License-Identifier: MIT
// What one timestamp costs on this machine: the vDSO clock_gettime() against
// the TSC read the agent's hot path uses when the TSC is invariant (see
// ProcessClock), and sw_now_ns() (TSC + conversion). Decides the clock.

#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "process_clock.h"

namespace {

std::map<std::string, double> ns_per_call;      // wall time
std::map<std::string, double> cpu_ns_per_call;  // CPU time: less disturbed by a busy machine

void report(benchmark::State& state, const char* key) {
  ns_per_call[key] = 0;  // filled from the run's results below
  state.SetLabel(key);
}

void BM_ClockGettimeMonotonic(benchmark::State& state) {
  timespec now;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    benchmark::DoNotOptimize(now);
  }
  report(state, "clock_gettime_monotonic");
}

void BM_Rdtsc(benchmark::State& state) {
  for (auto _ : state) {
    const std::uint64_t ticks = __builtin_ia32_rdtsc();
    benchmark::DoNotOptimize(ticks);
  }
  report(state, "rdtsc");
}

void BM_HotPathTicks(benchmark::State& state) {
  stallwatch::agent::ProcessClock::instance();
  for (auto _ : state) {
    const std::int64_t ticks = stallwatch::agent::read_ticks();
    benchmark::DoNotOptimize(ticks);
  }
  report(state, "agent_read_ticks");
}

void BM_NowNs(benchmark::State& state) {
  stallwatch::agent::ProcessClock& clock = stallwatch::agent::ProcessClock::instance();
  for (auto _ : state) {
    const std::int64_t now = clock.now_ns();
    benchmark::DoNotOptimize(now);
  }
  report(state, "agent_now_ns");
}

BENCHMARK(BM_ClockGettimeMonotonic)->Repetitions(5)->ReportAggregatesOnly();
BENCHMARK(BM_Rdtsc)->Repetitions(5)->ReportAggregatesOnly();
BENCHMARK(BM_HotPathTicks)->Repetitions(5)->ReportAggregatesOnly();
BENCHMARK(BM_NowNs)->Repetitions(5)->ReportAggregatesOnly();

// Keeps the console output and records each benchmark's median time.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name == "median") {
        ns_per_call[run.report_label] = run.GetAdjustedRealTime();
        cpu_ns_per_call[run.report_label] = run.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const bool tsc = stallwatch::agent::ProcessClock::instance().uses_tsc();
  std::printf("agent clock: %s\n", tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)");
  std::printf("{\"bench\":\"agent_clock\",\"agent_clock\":\"%s\"", tsc ? "tsc" : "monotonic");
  for (const auto& [key, ns] : ns_per_call)
    std::printf(",\"%s_ns\":%.2f", key.c_str(), ns);
  for (const auto& [key, ns] : cpu_ns_per_call) {
    std::printf(",\"%s_cpu_ns\":%.2f", key.c_str(), ns);
  }
  std::printf("}\n");
  return 0;
}
