// SPDX-License-Identifier: MIT
// The fuzz targets' seeds stay inputs their targets take in: if a format or
// the seeds changed so that a seed was refused, the fuzzer would start from
// garbage and never reach the code behind the check. tree_report_fuzz's
// seeds are reports its head accepts; ingest_engine_fuzz's are frames
// stallwatchd's decoder accepts and its engine turns into ranks.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "engine/engine.h"
#include "engine/name_table.h"
#include "ingest/batch_decoder.h"
#include "tree/remote_ranks.h"
#include "tree_fuzz_seeds.h"

namespace stallwatch::test {
namespace {

using namespace collector;

TEST(TreeFuzzSeeds, AHeadOfTheTargetsWindowsAcceptsEveryFrameAndHoldsTheirRanks) {
  std::vector<std::int64_t> windows = collector::fuzz::kWindowsNs;
  windows.push_back(0);
  const auto seeds = collector::fuzz::tree_fuzz_seeds();
  ASSERT_GE(seeds.size(), 6u);
  for (const auto& [name, frames] : seeds) {
    SCOPED_TRACE(name);
    RemoteRanks head(windows, 5'000'000'000, 30'000'000'000);
    std::int64_t now_ns = collector::fuzz::kHeadStartNs;
    std::set<std::int32_t> ranks;
    for (const auto& frame : frames) {
      // The target cuts the seed at each frame's magic: it must not occur
      // inside a frame.
      const std::string_view bytes(reinterpret_cast<const char*>(frame.data()), frame.size());
      ASSERT_EQ(bytes.find("SWNR", 1), std::string_view::npos);
      NodeReport report;
      ASSERT_EQ(decode_report(frame, report), "");
      for (const RankSnapshot& r : report.ranks)
        ranks.insert(r.rank);
      head.accept(frame, now_ns);
      now_ns += 1'000'000'000;
    }
    const RemoteRanksStats stats = head.stats();
    EXPECT_EQ(stats.reports_received, frames.size());
    EXPECT_EQ(stats.reports_rejected, 0u) << stats.last_rejection;
    EXPECT_EQ(stats.calls_out_of_step, 0u);
    EXPECT_EQ(stats.ranks, ranks.size());
  }
}

TEST(EngineFuzzSeeds, EveryFrameDecodesAndGivesTheEngineARank) {
  std::size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STALLWATCH_ENGINE_SEEDS_DIR)) {
    if (entry.path().extension() != ".swb") continue;  // the folder's README
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
    std::vector<std::uint64_t> aligned((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    NameTable names;
    BatchDecoder decoder(names);
    const EngineConfig config;
    Engine engine(config, names);
    BatchPreparer preparer = engine.make_preparer(nullptr);
    DecodedBatch batch;
    PreparedBatch prepared;
    const auto error = decoder.decode_prepared(
        {reinterpret_cast<const std::uint8_t*>(aligned.data()), bytes.size()}, preparer, batch,
        prepared);
    ASSERT_FALSE(error.has_value()) << error->detail;
    engine.ingest(batch, batch.sent_at_ns + 50'000'000, &prepared);
    const auto snapshot = engine.tick(batch.sent_at_ns + 1'000'000'000);
    ASSERT_EQ(snapshot->jobs.size(), 1u);
    EXPECT_EQ(snapshot->jobs[0].ranks.size(), 1u);
    ++seeds;
  }
  EXPECT_GE(seeds, 7u);
}

}  // namespace
}  // namespace stallwatch::test
