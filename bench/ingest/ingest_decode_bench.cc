// SPDX-License-Identifier: MIT
// Throughput of the collector's ingest decode path: FrameValidator plus
// BatchDecoder (validate, decode, intern) on full batches (8192 events, a few
// dozen names) and small ones (64 events), side by side with a memcpy of the
// same bytes and with validation alone. Ends with one JSON line of headline
// figures (medians of the repetitions).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engine/name_table.h"
#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "ingest/frame_validator.h"

namespace stallwatch::collector {
namespace {

constexpr std::int64_t kSentAtNs = 1'700'000'000'000'000'000;
constexpr std::size_t kFullBatch = 8192;
constexpr std::size_t kSmallBatch = 64;
constexpr int kRepetitions = 5;

// A training loop's mix: compute and data-loader regions, GPU kernels, POSIX
// reads, step marks and counters, over 36 distinct names on 4 threads.
std::vector<std::uint8_t> make_frame(std::size_t event_count) {
  NameTable names;
  const char* cats[] = {"compute", "dataloader", "gpu", "POSIX", "pipeline", "checkpoint"};
  std::vector<NameId> cat_ids;
  std::vector<NameId> name_ids;
  for (const char* cat : cats) {
    cat_ids.push_back(names.intern(cat));
    for (int i = 0; i < 5; ++i)
      name_ids.push_back(names.intern(std::string(cat) + ".op" + std::to_string(i)));
  }
  DecodedBatch batch;
  batch.source = {"bench-job",
                  0,
                  "bench-host",
                  1234,
                  1,
                  "0.1.0",
                  kSentAtNs - 60'000'000'000,
                  ProcessRole::kMain,
                  DeviceSource::kCupti};
  batch.sent_at_ns = kSentAtNs;
  for (std::size_t i = 0; i < event_count; ++i) {
    const auto kind = static_cast<EventKind>(i % 5);
    Event event;
    event.ts_ns = kSentAtNs - 10'000 * static_cast<std::int64_t>(event_count - i);
    event.dur_ns = kind == EventKind::kComplete ? 7'000 : 0;
    event.value = static_cast<std::int64_t>(i);
    event.region_id = static_cast<std::uint32_t>(i / 2);
    event.tid = 100 + static_cast<std::uint32_t>(i % 4);
    event.cat = cat_ids[i % cat_ids.size()];
    event.name = name_ids[(i * 7) % name_ids.size()];
    event.kind = kind;
    batch.events.push_back(event);
  }
  BatchEncoder encoder;
  const EncodedFrame frame = encoder.encode(batch, names);
  if (!frame.ok()) {
    std::fprintf(stderr, "cannot encode the benchmark batch: %s\n", frame.error.c_str());
    std::abort();
  }
  return {frame.bytes.begin(), frame.bytes.end()};
}

void set_rates(benchmark::State& state, std::size_t events, std::size_t bytes) {
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["events_per_s"] =
      benchmark::Counter(iterations * static_cast<double>(events), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

void bm_decode(benchmark::State& state, std::size_t event_count, bool unaligned) {
  const std::vector<std::uint8_t> frame = make_frame(event_count);
  // ZeroMQ hands small frames out at odd addresses: the decoder copies those.
  std::vector<std::uint8_t> storage(frame.size() + 1);
  std::memcpy(storage.data() + (unaligned ? 1 : 0), frame.data(), frame.size());
  const std::span<const std::uint8_t> bytes(storage.data() + (unaligned ? 1 : 0), frame.size());
  NameTable names;
  BatchDecoder decoder(names);
  DecodedBatch batch;
  for (auto _ : state) {
    if (decoder.decode(bytes, batch)) state.SkipWithError("frame rejected");
    benchmark::DoNotOptimize(batch.events.data());
    benchmark::ClobberMemory();
  }
  set_rates(state, event_count, frame.size());
}

void bm_validate(benchmark::State& state, std::size_t event_count) {
  const std::vector<std::uint8_t> frame = make_frame(event_count);
  for (auto _ : state) {
    auto error = FrameValidator::validate(frame);
    benchmark::DoNotOptimize(error);
  }
  set_rates(state, event_count, frame.size());
}

void bm_memcpy(benchmark::State& state, std::size_t event_count) {
  const std::vector<std::uint8_t> frame = make_frame(event_count);
  std::vector<std::uint8_t> copy(frame.size());
  for (auto _ : state) {
    std::memcpy(copy.data(), frame.data(), frame.size());
    benchmark::DoNotOptimize(copy.data());
    benchmark::ClobberMemory();
  }
  set_rates(state, event_count, frame.size());
}

void bm_encode(benchmark::State& state, std::size_t event_count) {
  const std::vector<std::uint8_t> frame = make_frame(event_count);
  NameTable names;
  BatchDecoder decoder(names);
  DecodedBatch batch;
  if (decoder.decode(frame, batch)) std::abort();
  BatchEncoder encoder;
  for (auto _ : state) {
    auto encoded = encoder.encode(batch, names);
    benchmark::DoNotOptimize(encoded.bytes.data());
  }
  set_rates(state, event_count, frame.size());
}

void register_all() {
  auto add = [](const char* name, auto fn) {
    benchmark::RegisterBenchmark(name, fn)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
  };
  add("decode/full_batch", [](benchmark::State& s) { bm_decode(s, kFullBatch, false); });
  add("decode/small_batch", [](benchmark::State& s) { bm_decode(s, kSmallBatch, false); });
  add("decode/small_batch_unaligned", [](benchmark::State& s) { bm_decode(s, kSmallBatch, true); });
  add("validate_only/full_batch", [](benchmark::State& s) { bm_validate(s, kFullBatch); });
  add("memcpy/full_batch", [](benchmark::State& s) { bm_memcpy(s, kFullBatch); });
  add("encode/full_batch", [](benchmark::State& s) { bm_encode(s, kFullBatch); });
}

// Prints the usual table and keeps each benchmark's median counters.
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  MedianCollector() : ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") {
        auto& figures = medians[run.run_name.function_name];
        for (const auto& [name, counter] : run.counters)
          figures[name] = counter.value;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  std::map<std::string, std::map<std::string, double>> medians;
};

}  // namespace
}  // namespace stallwatch::collector

int main(int argc, char** argv) {
  using stallwatch::collector::MedianCollector;
  benchmark::Initialize(&argc, argv);
  stallwatch::collector::register_all();
  MedianCollector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto figure = [&](const std::string& bench, const std::string& counter) {
    const auto it = reporter.medians.find(bench);
    if (it == reporter.medians.end()) return 0.0;
    const auto value = it->second.find(counter);
    return value == it->second.end() ? 0.0 : value->second;
  };
  const double full_events = figure("decode/full_batch", "events_per_s");
  const double full_bytes = figure("decode/full_batch", "bytes_per_second");
  const double memcpy_bytes = figure("memcpy/full_batch", "bytes_per_second");
  std::printf(
      "{\"bench\":\"ingest_decode\",\"full_batch_events\":%zu,\"small_batch_events\":%zu,"
      "\"full_batch_events_per_s\":%.0f,\"full_batch_mb_per_s\":%.1f,"
      "\"small_batch_events_per_s\":%.0f,\"small_batch_mb_per_s\":%.1f,"
      "\"small_batch_unaligned_events_per_s\":%.0f,\"validate_only_full_events_per_s\":%.0f,"
      "\"encode_full_events_per_s\":%.0f,\"memcpy_full_mb_per_s\":%.1f,"
      "\"decode_vs_memcpy_ratio\":%.4f}\n",
      stallwatch::collector::kFullBatch, stallwatch::collector::kSmallBatch, full_events,
      full_bytes / 1e6, figure("decode/small_batch", "events_per_s"),
      figure("decode/small_batch", "bytes_per_second") / 1e6,
      figure("decode/small_batch_unaligned", "events_per_s"),
      figure("validate_only/full_batch", "events_per_s"),
      figure("encode/full_batch", "events_per_s"), memcpy_bytes / 1e6,
      memcpy_bytes > 0 ? full_bytes / memcpy_bytes : 0.0);
  return 0;
}
