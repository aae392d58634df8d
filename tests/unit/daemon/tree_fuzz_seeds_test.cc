// SPDX-License-Identifier: MIT
// The seeds of tree_report_fuzz stay reports the target's head takes: if the
// report format or the seeds changed so that a seed was refused, the fuzzer
// would start from garbage and never reach the merge.

#include "tree_fuzz_seeds.h"

#include <gtest/gtest.h>

#include <set>

#include "tree/remote_ranks.h"

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

}  // namespace
}  // namespace stallwatch::test
