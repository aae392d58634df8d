// SPDX-License-Identifier: MIT
// ns per region (sw_region_begin + sw_region_end) on the recording hot path,
// with the collector connected (a PULL socket drained by another thread),
// absent (nothing listens on the endpoint) and with the agent disabled; 1 and
// 2 recording threads.
//
// Method: an iteration is a burst of kBurst regions, timed in chunks of
// kChunk regions with steady_clock (the empty-chunk overhead is subtracted);
// between bursts, untimed, sw_flush() lets the sender drain so that every
// region is really recorded (none refused for a full ring). Median and p99
// are over the chunk means, i.e. per region averaged over kChunk regions.

#include <benchmark/benchmark.h>
#include <stallwatch/stallwatch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "drain_collector.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBurst = 4096;
constexpr int kChunk = 64;

std::mutex samples_mutex;
std::map<std::string, std::vector<double>> samples;  // "<mode>/<threads>t" -> ns per region
std::string mode;
stallwatch::bench::DrainCollector* collector = nullptr;
double chunk_overhead_ns = 0;
sw_stats before{};
std::map<std::string, std::uint64_t> refused;  // per mode: calls refused for a full ring

sw_stats current_stats() {
  sw_stats stats{};
  stats.size = sizeof(stats);
  sw_get_stats(&stats);
  return stats;
}

void restart(const std::string& next_mode, const std::string& endpoint, bool enable) {
  sw_stop();
  sw_config* config = nullptr;
  sw_config_new(&config);
  sw_config_set(config, "collector", endpoint.c_str());
  sw_config_set(config, "buffer_events", "65536");
  sw_config_set(config, "enable", enable ? "1" : "0");
  const int rc = sw_start(config);
  sw_config_free(config);
  if (rc != (enable ? SW_OK : SW_DISABLED)) {
    std::fprintf(stderr, "sw_start: %s\n", sw_strerror(rc));
    std::abort();
  }
  mode = next_mode;
  before = current_stats();
}

void teardown(const benchmark::State& state) {
  const sw_stats after = current_stats();
  refused[mode + "/" + std::to_string(state.threads()) + "t"] =
      (after.events_dropped - after.events_lost_in_send) -
      (before.events_dropped - before.events_lost_in_send);
}

void setup_connected(const benchmark::State&) {
  restart("connected", collector->endpoint(), true);
}
void setup_absent(const benchmark::State&) {
  restart("absent", "ipc:///tmp/stallwatch-bench-nobody-listens.sock", true);
}
void setup_disabled(const benchmark::State&) {
  restart("disabled", "tcp://127.0.0.1:1", false);
}

double measure_chunk_overhead() {
  std::vector<double> empty;
  for (int i = 0; i < 20000; ++i) {
    const auto start = Clock::now();
    benchmark::ClobberMemory();
    empty.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
  }
  std::nth_element(empty.begin(), empty.begin() + empty.size() / 2, empty.end());
  return empty[empty.size() / 2];
}

void BM_Region(benchmark::State& state) {
  const sw_name_t cat = sw_intern("compute");
  const sw_name_t name = sw_intern("forward");
  std::vector<double> local;
  local.reserve(1 << 16);
  for (auto _ : state) {
    double burst_ns = 0;
    for (int chunk = 0; chunk < kBurst / kChunk; ++chunk) {
      const auto start = Clock::now();
      for (int i = 0; i < kChunk; ++i) {
        const sw_region_t region = sw_region_begin(cat, name);
        benchmark::DoNotOptimize(region);
        sw_region_end(region);
      }
      const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() -
                        chunk_overhead_ns;
      burst_ns += ns;
      local.push_back(ns / kChunk);
    }
    state.SetIterationTime(burst_ns * 1e-9);
    if (mode != "disabled") sw_flush(10000);
  }
  state.SetItemsProcessed(state.iterations() * kBurst);
  std::lock_guard lock(samples_mutex);
  auto& all = samples[mode + "/" + std::to_string(state.threads()) + "t"];
  all.insert(all.end(), local.begin(), local.end());
}

BENCHMARK(BM_Region)
    ->Name("region/disabled")
    ->Setup(setup_disabled)
    ->Teardown(teardown)
    ->UseManualTime()
    ->Threads(1);
BENCHMARK(BM_Region)
    ->Name("region/connected")
    ->Setup(setup_connected)
    ->Teardown(teardown)
    ->UseManualTime()
    ->Threads(1)
    ->Threads(2);
BENCHMARK(BM_Region)
    ->Name("region/absent")
    ->Setup(setup_absent)
    ->Teardown(teardown)
    ->UseManualTime()
    ->Threads(1)
    ->Threads(2);

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index),
                   values.end());
  return values[index];
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  stallwatch::bench::DrainCollector drain;
  collector = &drain;
  chunk_overhead_ns = measure_chunk_overhead();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  const sw_stats stats = current_stats();
  sw_stop();
  std::printf("\nper region, over %d-region chunks (timer overhead %.1f ns/chunk subtracted):\n",
              kChunk, chunk_overhead_ns);
  std::string json = "{\"bench\":\"agent_region\"";
  char field[160];
  for (const auto& [key, values] : samples) {
    const double median = percentile(values, 0.5);
    const double p99 = percentile(values, 0.99);
    std::printf("  %-14s median %6.1f ns  p99 %6.1f ns  (%zu chunks, %llu calls refused)\n",
                key.c_str(), median, p99, values.size(),
                static_cast<unsigned long long>(refused[key]));
    std::string id = key;
    std::replace(id.begin(), id.end(), '/', '_');
    std::snprintf(field, sizeof(field), ",\"%s_ns_median\":%.1f,\"%s_ns_p99\":%.1f", id.c_str(),
                  median, id.c_str(), p99);
    json += field;
    if (key == "connected/1t") {
      std::snprintf(field, sizeof(field), ",\"ns_per_region_median\":%.1f", median);
      json += field;
    }
  }
  std::printf("agent totals: recorded %llu, dropped %llu (lost in send %llu), sent %llu\n",
              static_cast<unsigned long long>(stats.events_recorded),
              static_cast<unsigned long long>(stats.events_dropped),
              static_cast<unsigned long long>(stats.events_lost_in_send),
              static_cast<unsigned long long>(stats.events_sent));
  std::printf("%s}\n", json.c_str());
  return 0;
}
