// SPDX-License-Identifier: MIT
#include "dfanalyzer_summary.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "config/class_presets.h"
#include "trace_files.h"
#include "traces/trace_plan.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

constexpr std::int64_t kUs = 1000;
constexpr std::int64_t kBase = 1'000'000;  // µs

std::string event(std::string_view name, std::string_view cat, std::int64_t tid, std::int64_t ts,
                  std::int64_t dur, std::int64_t pid = 1) {
  return R"({"name":")" + std::string(name) + R"(","cat":")" + std::string(cat) + R"(","pid":)" +
         std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
         std::to_string(kBase + ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"ph":"X"})" + "\n";
}

DfJobSummary summarize(const std::vector<std::string>& paths, std::string_view preset,
                       DfAnalysisOptions options = {}) {
  TracePlan plan;
  EXPECT_EQ(plan_traces(paths, plan), "");
  CachedClassifier classifier(*class_preset(preset));
  DfJobSummary out;
  std::vector<ReadStats> stats;
  EXPECT_EQ(summarize_dftracer(plan, classifier, options, nullptr, out, stats), "");
  return out;
}

// DFAnalyzer's README for the shared DLIO set: job time 56.695 s, compute
// 272.356 s over 200 ops, fetch data 126.179 s over 160 (sums over 8 ranks).
TEST(DfanalyzerSummary, ReproducesDfanalyzerOnTheDlioSet) {
  std::vector<std::string> paths;
  for (int r = 0; r < 8; ++r) {
    paths.push_back(
        testing::test_data("dftracer-dlio/trace-" + std::to_string(r) + "-of-8.pfw.gz"));
  }
  const DfJobSummary s = summarize(paths, "dlio");
  ASSERT_EQ(s.ranks.size(), 8u);
  EXPECT_EQ(s.end_ns - s.start_ns, 56'695'354'000);
  EXPECT_EQ(s.exact.compute, 272'355'584'000);
  EXPECT_EQ(s.ops[static_cast<std::size_t>(EventClass::kCompute)], 200u);
  EXPECT_EQ(s.exact.fetch, 126'178'714'000);
  EXPECT_EQ(s.ops[static_cast<std::size_t>(EventClass::kFetch)], 160u);
  for (std::size_t r = 0; r < s.ranks.size(); ++r)
    EXPECT_EQ(s.ranks[r].rank, static_cast<std::int64_t>(r));
  EXPECT_EQ(s.passes, 1);
}

std::vector<std::string> two_ranks(const TempDir& dir) {
  // Rank 0, written in end order as dftracer does.
  const std::string rank0 = event("mm", "compute", 1, 0, 100) + event("read", "POSIX", 1, 50, 100) +
                            event("loop.iter", "dataloader", 1, 100, 100) +
                            event("load", "reader", 1, 40, 220) +
                            event("mm", "compute", 1, 200, 100);
  const std::string rank1 = event("mm", "compute", 2, 1000, 100, 2);
  return {dir.write("job-0-of-2.pfw", rank0), dir.write("job-1-of-2.pfw", rank1)};
}

TEST(DfanalyzerSummary, ComputesExactUnionsPerRankAndSumsThem) {
  TempDir dir;
  const DfJobSummary s = summarize(two_ranks(dir), "default");
  ASSERT_EQ(s.ranks.size(), 2u);
  const IntervalTotals& r0 = s.ranks[0].exact;
  EXPECT_EQ(r0.compute, 200 * kUs);
  EXPECT_EQ(r0.io, 100 * kUs);
  EXPECT_EQ(r0.app_io, 220 * kUs);  // [40,260) includes the fetch
  EXPECT_EQ(r0.fetch, 100 * kUs);
  EXPECT_EQ(r0.unoverlapped_io, 50 * kUs);           // [100,150)
  EXPECT_EQ(r0.unoverlapped_app_io, 100 * kUs);      // [100,200)
  EXPECT_EQ(r0.unoverlapped_compute, 150 * kUs);     // compute minus [50,100)
  EXPECT_EQ(r0.unoverlapped_app_compute, 80 * kUs);  // [0,40) + [260,300)
  EXPECT_EQ(r0.compute_only, 80 * kUs);
  EXPECT_EQ(s.ranks[1].exact.compute, 100 * kUs);
  EXPECT_EQ(s.exact.compute, 300 * kUs);
  EXPECT_EQ(s.exact.unoverlapped_app_io, 100 * kUs);
  EXPECT_EQ(s.end_ns - s.start_ns, 1100 * kUs);
  EXPECT_EQ(s.ranks[0].end_ns - s.ranks[0].start_ns, 300 * kUs);
}

TEST(DfanalyzerSummary, LateIntervalsTriggerAnExactSecondPass) {
  std::string content;
  for (int i = 0; i < 40000; ++i)
    content += event("read", "POSIX", 1, 10 * i, 4);
  content += event("compute", "compute", 1, 5, 100000);  // ends late, starts at the beginning
  content += event("load", "reader", 1, 0, 400000);
  TempDir dir;
  const std::vector<std::string> paths{dir.write("late.pfw", content)};
  DfAnalysisOptions tight;
  tight.horizon_ns = 1'000'000;  // 1 ms: most of the run is sealed when the long events arrive
  const DfJobSummary sealed = summarize(paths, "default", tight);
  DfAnalysisOptions loose;
  loose.horizon_ns = 3600'000'000'000;
  const DfJobSummary whole = summarize(paths, "default", loose);
  EXPECT_EQ(sealed.passes, 2);
  EXPECT_EQ(sealed.ranks[0].late_intervals, 2u);
  EXPECT_EQ(whole.passes, 1);
  EXPECT_EQ(sealed.exact.io, 40000 * 4 * kUs);
  EXPECT_EQ(sealed.exact.compute, whole.exact.compute);
  EXPECT_EQ(sealed.exact.app_io, whole.exact.app_io);
  EXPECT_EQ(sealed.exact.unoverlapped_io, whole.exact.unoverlapped_io);
  EXPECT_EQ(sealed.exact.unoverlapped_io, (40000 - 10000) * 4 * kUs);
  EXPECT_EQ(sealed.exact.unoverlapped_app_io, whole.exact.unoverlapped_app_io);
  EXPECT_LT(sealed.ranks[0].peak_open_intervals, whole.ranks[0].peak_open_intervals);
}

TEST(DfanalyzerSummary, BinsLikeDfanalyzersApproximation) {
  const std::string content = event("mm", "compute", 1, 0, 50) + event("mm", "compute", 2, 10, 30) +
                              event("read", "POSIX", 1, 60, 30) +
                              event("mm", "compute", 1, 150, 30) +
                              event("load", "reader", 2, 100, 150);
  TempDir dir;
  DfAnalysisOptions options;
  options.granularity_ns = 100 * kUs;
  const DfJobSummary s = summarize({dir.write("bins.pfw", content)}, "default", options);
  ASSERT_TRUE(s.binned.has_value());
  const BinnedTotals& b = *s.binned;
  EXPECT_EQ(b.bins, 2u);
  EXPECT_EQ(b.origin_ns, s.start_ns);
  EXPECT_EQ(b.compute, 80 * kUs);  // max over threads per bin: 50 + 30
  EXPECT_EQ(b.io, 30 * kUs);
  EXPECT_EQ(b.app_io, 150 * kUs);  // the whole load counts in its start bin
  EXPECT_EQ(b.unoverlapped_io, 0);
  EXPECT_EQ(b.unoverlapped_compute, 50 * kUs);
  EXPECT_EQ(b.unoverlapped_app_io, 120 * kUs);
  EXPECT_EQ(b.unoverlapped_app_compute, 50 * kUs);
  // The exact view of the same events.
  EXPECT_EQ(s.exact.compute, 80 * kUs);  // threads of one rank overlap: [0,50) + [150,180)
}

TEST(DfanalyzerSummary, MergedBinsEqualOneAccumulator) {
  const ClassMask compute = class_bit(EventClass::kCompute);
  const ClassMask io = class_bit(EventClass::kIo);
  BinnedTimes whole(0, 100), first(0, 100), second(0, 100);
  struct Add {
    std::int64_t pid, tid, ts, dur;
    ClassMask classes;
  };
  const Add adds[] = {{1, 1, 0, 50, compute},   {1, 1, 20, 30, io},      {1, 2, 150, 80, io},
                      {2, 2, 160, 10, compute}, {1, 1, 90, 40, compute}, {1, 2, 110, 5, io}};
  for (std::size_t i = 0; i < std::size(adds); ++i) {
    const Add& a = adds[i];
    ASSERT_TRUE(whole.add(a.pid, a.tid, a.ts, a.dur, a.classes));
    // The same (pid, tid) lands in both halves: sums must add, not replace.
    ASSERT_TRUE((i % 2 == 0 ? first : second).add(a.pid, a.tid, a.ts, a.dur, a.classes));
  }
  first.merge(second);
  const BinnedTotals a = whole.finish(), b = first.finish();
  EXPECT_EQ(b.bins, a.bins);
  EXPECT_EQ(b.compute, a.compute);
  EXPECT_EQ(b.io, a.io);
  EXPECT_EQ(b.unoverlapped_io, a.unoverlapped_io);
  EXPECT_EQ(b.unoverlapped_compute, a.unoverlapped_compute);
  EXPECT_EQ(a.compute, 90 + 10);  // bin 0: thread (1,1) 50 + 40; bin 1: max(0, 10)
}

}  // namespace
}  // namespace stallwatch::collector
