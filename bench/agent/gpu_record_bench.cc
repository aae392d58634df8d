// SPDX-License-Identifier: MIT
// The agent's CPU cost per CUPTI activity record, without a GPU: parsing a
// record (any CUPTI layout since CUDA 9.0), mapping its timestamps onto the
// agent's clock and placing it on its stream lane (parse_map); and that plus
// recording it as a "gpu" complete event through ActivitySink into a running
// agent whose sender drains to a local collector (deliver), which is what the
// CUPTI buffer callback does per record. The device-side overhead of CUPTI
// itself needs a GPU: agent/gpu/README.md and bench/python/gpu_sources.py.

#include <benchmark/benchmark.h>
#include <stallwatch/stallwatch.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "activity_interval.h"
#include "activity_sink.h"
#include "agent.h"
#include "clock_map.h"
#include "cupti_abi.h"
#include "cupti_record_parser.h"
#include "drain_collector.h"

namespace {

using namespace stallwatch::agent;

constexpr std::size_t kRecords = 4096;
constexpr std::size_t kRecordBytes = 256;  // CUpti_ActivityKernel10 rounded up
constexpr std::int64_t kSource0 = 1'700'000'000'000'000'000;

double parse_map_ns = 0;
double deliver_ns = 0;

// A CUPTI activity buffer of kernel records on 4 streams with 32 kernel names.
struct SyntheticBuffer {
  std::vector<std::string> names;
  std::vector<std::uint8_t> bytes;

  SyntheticBuffer() : bytes(kRecords * kRecordBytes, 0) {
    for (int i = 0; i < 32; ++i) {
      names.push_back("_ZN2at6native12_GLOBAL__N_125kernel_variant_" + std::to_string(i) + "Ev");
    }
    for (std::size_t i = 0; i < kRecords; ++i) {
      cupti::KernelPrefix r{};
      r.kind = cupti::kActivityConcurrentKernel;
      r.start = static_cast<std::uint64_t>(kSource0) + i * 10'000;
      r.end = r.start + 8'000;
      r.device_id = 0;
      r.stream_id = 7 + static_cast<std::uint32_t>(i % 4);
      r.correlation_id = static_cast<std::uint32_t>(i);
      r.name = names[i % names.size()].c_str();
      std::memcpy(bytes.data() + i * kRecordBytes, &r, sizeof(r));
    }
  }
  const std::uint8_t* record(std::size_t i) const { return bytes.data() + i * kRecordBytes; }
};

ClockMap sampled_clock() {
  ClockMap clock;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(ClockMap::kMaxSamples); ++i) {
    const std::int64_t source = kSource0 + i * 100'000'000;
    clock.add_sample(source, source - 3'000'000'000 + i * 5'000);
  }
  return clock;
}

void BM_ParseMap(benchmark::State& state) {
  const SyntheticBuffer buffer;
  const ClockMap clock = sampled_clock();
  for (auto _ : state) {
    for (std::size_t i = 0; i < kRecords; ++i) {
      const auto record = parse_cupti_record(buffer.record(i));
      const auto interval = to_interval(*record, clock);
      benchmark::DoNotOptimize(interval);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRecords));
}
BENCHMARK(BM_ParseMap)->Repetitions(5)->ReportAggregatesOnly();

void BM_Deliver(benchmark::State& state) {
  stallwatch::bench::DrainCollector collector;
  sw_config* config = nullptr;
  sw_config_new(&config);
  sw_config_set(config, "collector", collector.endpoint().c_str());
  sw_config_set(config, "job", "bench-gpu");
  sw_start(config);
  sw_config_free(config);
  const SyntheticBuffer buffer;
  const ClockMap clock = sampled_clock();
  ActivitySink sink(Agent::instance()->buffer_events() / 2);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kRecords; ++i) {
      const auto record = parse_cupti_record(buffer.record(i));
      sink.emit(*record, *to_interval(*record, clock));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRecords));
  sw_flush(10'000);
  sw_stats stats{};
  stats.size = sizeof(stats);
  sw_get_stats(&stats);
  state.counters["dropped"] = static_cast<double>(stats.events_dropped);
  state.counters["sent"] = static_cast<double>(stats.events_sent);
  sw_stop();
}
BENCHMARK(BM_Deliver)->Repetitions(5)->ReportAggregatesOnly()->UseRealTime();

class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name != "median") continue;
      const double ns = 1e9 / run.counters.at("items_per_second");
      if (run.run_name.function_name == "BM_ParseMap") parse_map_ns = ns;
      if (run.run_name.function_name == "BM_Deliver") deliver_ns = ns;
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
  std::printf(
      "{\"bench\":\"agent_gpu_records\",\"ns_per_record_parse_map_median\":%.1f,"
      "\"ns_per_record_deliver_median\":%.1f,\"records_per_second_deliver_median\":%.0f}\n",
      parse_map_ns, deliver_ns, deliver_ns > 0 ? 1e9 / deliver_ns : 0.0);
  return 0;
}
