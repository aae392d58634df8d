// SPDX-License-Identifier: MIT
// Encoding alone: Records -> one finished Batch frame (BatchEncoder: name
// mapping, tick conversion, FlatBuffers), 8192 events with 16 names per
// batch, no ZeroMQ. The part of the sender's cost that is ours.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "batch_encoder.h"
#include "name_table.h"
#include "process_clock.h"

namespace {

double events_per_second = 0;

void BM_EncodeBatch(benchmark::State& state) {
  using namespace stallwatch::agent;
  constexpr std::size_t kEvents = 8192;
  NameTable names;
  std::vector<std::uint16_t> ids;
  for (int i = 0; i < 16; ++i) {
    ids.push_back(static_cast<std::uint16_t>(names.intern("name-" + std::to_string(i))));
  }
  std::vector<Record> records(kEvents);
  for (std::size_t i = 0; i < kEvents; ++i) {
    records[i] = Record{static_cast<std::int64_t>(1000 + i),
                        static_cast<std::int64_t>(i),
                        static_cast<std::uint32_t>(i),
                        77,
                        ids[i % 16],
                        ids[(i + 3) % 16],
                        i % 2 == 0 ? RecordKind::kBegin : RecordKind::kEnd,
                        0,
                        0};
  }
  BatchEncoder encoder(names, kEvents);
  stallwatch::SourceInfo source;
  source.job = "bench";
  source.host = "host";
  source.agent_version = "0.1.0";
  encoder.set_source(source);
  const TimeBase base = ProcessClock::instance().time_base();
  std::uint64_t seq = 0;
  for (auto _ : state) {
    encoder.reset();
    for (const Record& r : records)
      encoder.add(r);
    encoder.prepare(base);
    const auto frame = encoder.finish(seq++, 0, 0, false);
    benchmark::DoNotOptimize(frame.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kEvents));
}

BENCHMARK(BM_EncodeBatch)->Repetitions(5)->ReportAggregatesOnly();

class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.aggregate_name == "median") {
        events_per_second = run.counters.at("items_per_second");
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
  std::printf(
      "{\"bench\":\"agent_encode\",\"events_per_second_median\":%.0f,\"batch_events\":8192}\n",
      events_per_second);
  return 0;
}
