// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as one frame an agent sends, through all that
// stallwatchd does with it: BatchDecoder::decode_prepared (the checks every
// frame passes, then decoding and preparing), Engine::ingest at the
// collector's clock, ticks one second, one window and the longest window
// later, and what the API serves from each: the jobs list and every job's
// detail, `GET /metrics` with every optional family, and each rank's
// timeline and series. Nothing may crash, leak or report undefined behaviour
// (validator_fuzz checks the decoding itself). Seeds: the frames of
// ingest_fuzz_seeds (collector/ingest/fuzz), in fuzz/engine_seeds.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "engine/batch_preparer.h"
#include "engine/engine.h"
#include "engine/name_table.h"
#include "fuzz_serve.h"
#include "ingest/batch_decoder.h"

namespace {

using namespace stallwatch::collector;

constexpr std::int64_t kS = 1'000'000'000;
// The collector's clock at the frame: the seeds' sent_at plus 50 ms.
constexpr std::int64_t kNowNs = 1'700'000'000'000'000'000 + 50'000'000;

void serve(const std::shared_ptr<const Snapshot>& snapshot, const Engine& engine,
           const EngineConfig& config) {
  fuzz::serve_snapshot(snapshot, config.windows_ns);
  for (const JobSnapshot& job : snapshot->jobs) {
    for (const RankSnapshot& rank : job.ranks)
      (void)engine.timeline(job.job, rank.rank, 60);
    for (const std::string_view metric : Engine::series_metric_names())
      (void)engine.series(job.job, metric, config.windows_ns.front(), 300 * kS);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Bounded, and kept across inputs as the daemon keeps its names.
  static NameTable names(1u << 16, 16u << 20);
  static BatchDecoder decoder(names);
  std::vector<std::uint64_t> aligned((size + 7) / 8);  // frames are read 8-byte aligned
  if (size != 0) std::memcpy(aligned.data(), data, size);
  const std::span<const std::uint8_t> frame(reinterpret_cast<const std::uint8_t*>(aligned.data()),
                                            size);
  const EngineConfig config;
  Engine engine(config, names);
  BatchPreparer preparer = engine.make_preparer(nullptr);
  DecodedBatch batch;
  PreparedBatch prepared;
  if (decoder.decode_prepared(frame, preparer, batch, prepared)) return 0;  // refused
  engine.ingest(batch, kNowNs, &prepared);
  for (const std::int64_t later : {kS, config.windows_ns.front(), config.windows_ns.back()})
    serve(engine.tick(kNowNs + later), engine, config);
  return 0;
}
