// SPDX-License-Identifier: MIT
// Top kernels by device time: a rank's device work (the work a launch call's
// correlation id points at) summed per name and window, most time first, with
// an "other" row.

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "kernel_tracker.h"
#include "stallwatch/device_lane.h"
#include "test_batches.h"

namespace stallwatch::collector {

void PrintTo(const KernelEntry& k, std::ostream* os) {
  *os << "{'" << k.name << "', " << k.device_ns << " ns, " << k.count << "x}";
}

namespace testing {
namespace {

const std::uint32_t kStream = wire::device_lane(0, 7);

const TopKernels& top(const RankSnapshot& r, std::int64_t window_ns) {
  for (const TopKernels& t : r.top_kernels) {
    if (t.window_ns == window_ns) return t;
  }
  ADD_FAILURE() << "no top kernels for window " << window_ns;
  static const TopKernels kNone;
  return kNone;
}

TEST(EngineTopKernels, MostDeviceTimeFirstWithCountsCopiesAndSetsIncluded) {
  Harness h(small_config());
  auto main = h.source(100);
  std::uint32_t id = 1;
  const auto work = [&](std::string_view name, std::int64_t ts, std::int64_t dur) {
    main.complete("gpu", name, ts, dur, kStream).correlated(id++);
  };
  work("gemm", kT0 + ms(1), us(300));
  work("gemm", kT0 + ms(2), us(500));
  work("memcpy HtoD", kT0 + ms(3), us(900));
  work("memset", kT0 + ms(4), us(10));
  work("ncclDevKernel_AllReduce_Sum_f32_RING_LL", kT0 + ms(5), us(200));
  // Not device work a launch points at: a CUDA-event span and a launch call.
  main.complete("gpu", "forward", kT0 + ms(1), ms(5), kStream);
  main.complete("cuda_runtime", "cudaLaunchKernel", kT0 + ms(1), us(5), 200).correlated(1);
  h.send(main.take(kT0 + ms(20)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->top_kernels.size(), 2u);  // the configured windows, not the totals
  const TopKernels& t = top(*r, ms(30));
  EXPECT_EQ(t.kernels,
            (std::vector<KernelEntry>{{"memcpy HtoD", us(900), 1},
                                      {"gemm", us(800), 2},
                                      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", us(200), 1},
                                      {"memset", us(10), 1}}));
  EXPECT_EQ(t.other, KernelEntry{});
  // The 10 ms window [10, 20) ms holds none of them: every piece ended before.
  EXPECT_TRUE(top(*r, ms(10)).kernels.empty());
}

TEST(EngineTopKernels, WorkCountsWholeAtItsEndOnceAndNotWhenItEndsLate) {
  Harness h(small_config());
  auto main = h.source(100);
  main.complete("gpu", "long", kT0 + ms(5), ms(7), kStream).correlated(1);
  h.send(main.take(kT0 + ms(20)));  // horizon 15 ms
  // Ends at 14 ms, before the horizon: late, not counted.
  main.complete("gpu", "late", kT0 + ms(13), ms(1), kStream).correlated(2);
  main.complete("gpu", "on_time", kT0 + ms(14), ms(2), kStream).correlated(3);
  h.send(main.take(kT0 + ms(22)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(22)), "job", 0);
  ASSERT_NE(r, nullptr);
  // [0, 20) ms: the long kernel ended at 12 ms and counts whole.
  EXPECT_EQ(top(*r, ms(30)).kernels,
            (std::vector<KernelEntry>{{"long", ms(7), 1}, {"on_time", ms(2), 1}}));
  EXPECT_EQ(top(*r, ms(10)).kernels,
            (std::vector<KernelEntry>{{"long", ms(7), 1}, {"on_time", ms(2), 1}}));
}

// 1 000 kernel names over 50 cells: a finalized cell keeps its top names and
// one "other" row, and nothing is lost from the sums.
TEST(EngineTopKernels, ManyNamesAreBoundedPerCellAndSumExactly) {
  EngineConfig c = small_config();
  c.top_kernels_per_cell = 3;
  c.windows_ns = {ms(50)};
  c.verdict_window_ns = ms(50);
  c.history_ns = ms(60);
  Harness h(c);
  auto main = h.source(100);
  for (std::uint32_t k = 1; k <= 1000; ++k) {
    const std::int64_t at = kT0 + us(50 * (k - 1));  // 20 per 1 ms cell
    main.complete("gpu", "k" + std::to_string(k), at, us(k % 7 + 1), kStream).correlated(k);
  }
  h.send(main.take(kT0 + ms(50)));
  h.send(main.take(kT0 + ms(60)));  // finalizes [0, 55) ms
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(60)), "job", 0);
  const TopKernels& t = top(*r, ms(50));
  ASSERT_EQ(t.kernels.size(), TopKernels::kTopKernelsShown);
  std::int64_t ns = t.other.device_ns, count = t.other.count;
  for (const KernelEntry& k : t.kernels) {
    ns += k.device_ns;
    count += k.count;
    EXPECT_EQ(k.device_ns, us(7)) << k.name;  // the longest: k % 7 == 6
  }
  // The window [10, 60) ms holds the work of kernels 201-1000 (ending in it).
  std::int64_t want_ns = 0;
  for (std::int64_t k = 201; k <= 1000; ++k)
    want_ns += us(k % 7 + 1);
  EXPECT_EQ(ns, want_ns);
  EXPECT_EQ(count, 800);
}

TEST(EngineTopKernels, ARankWithoutDeviceWorkHasEmptyWindows) {
  Harness h(small_config());
  auto main = h.source(100);
  main.complete("compute", "forward", kT0 + ms(1), ms(2));
  h.send(main.take(kT0 + ms(10)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(10)), "job", 0);
  ASSERT_NE(r, nullptr);
  for (const TopKernels& t : r->top_kernels) {
    EXPECT_TRUE(t.kernels.empty());
    EXPECT_EQ(t.other, KernelEntry{});
  }
}

TEST(KernelTracker, AFinalizedCellKeepsItsTopNamesAndOneOtherRow) {
  detail::KernelTracker kernels(ms(1), 4);
  const std::int64_t cell = kT0 / ms(1);
  // Names 1..10 000 in the cell, plus name 5 once more in an earlier cell
  // that finalizes into the same one (before from_cell).
  for (NameId n = 1; n <= 10'000; ++n)
    kernels.add(kT0 + us(n % 100 * 10), n, n);
  kernels.add(kT0 - ms(3), 5, 1'000'000);
  EXPECT_EQ(kernels.pending(), 10'001u);
  kernels.finalize(cell, cell + 1, cell);
  EXPECT_EQ(kernels.pending(), 0u);
  EXPECT_EQ(kernels.finalized_rows(), 5u);
  std::int64_t count = 0, ns = 0;
  std::vector<NameId> kept;
  kernels.for_each_row(cell, cell + 1, cell + 1, [&](const detail::KernelRow& row) {
    count += row.sums.count;
    ns += row.sums.device_ns;
    if (!row.other) kept.push_back(row.name);
  });
  EXPECT_EQ(count, 10'001);
  EXPECT_EQ(ns, 10'000LL * 10'001 / 2 + 1'000'000);
  EXPECT_EQ(kept, (std::vector<NameId>{5, 10'000, 9'999, 9'998}));
  // Pending rows count where they will be finalized; outside [lo, hi) none.
  kernels.add(kT0 + ms(1), 7, 3);
  std::int64_t seen = 0;
  kernels.for_each_row(cell + 1, cell + 2, cell + 1,
                       [&](const detail::KernelRow& row) { seen += row.sums.device_ns; });
  EXPECT_EQ(seen, 3);
  seen = 0;
  kernels.for_each_row(cell + 2, cell + 3, cell + 1,
                       [&](const detail::KernelRow& row) { seen += row.sums.device_ns; });
  EXPECT_EQ(seen, 0);
  kernels.trim(cell + 1);
  EXPECT_EQ(kernels.finalized_rows(), 0u);
  EXPECT_FALSE(kernels.empty());
  EXPECT_GT(kernels.bytes(), 0u);
}

TEST(KernelTracker, ATieKeepsTheNameInternedFirstAndCellsBeforeKeepFromAreDropped) {
  detail::KernelTracker kernels(ms(1), 1);
  const std::int64_t cell = kT0 / ms(1);
  kernels.add(kT0, 9, 100);
  kernels.add(kT0, 4, 100);
  kernels.add(kT0 + ms(1), 2, 100);
  kernels.finalize(cell, cell + 2, cell + 1);  // cell is outside every window
  std::vector<std::pair<NameId, bool>> rows;
  kernels.for_each_row(cell, cell + 2, cell + 2, [&](const detail::KernelRow& row) {
    rows.emplace_back(row.name, row.other);
  });
  EXPECT_EQ(rows, (std::vector<std::pair<NameId, bool>>{{2, false}}));
  kernels.add(kT0 + ms(2), 9, 100);
  kernels.add(kT0 + ms(2), 4, 100);
  kernels.finalize(cell + 2, cell + 3, cell);
  rows.clear();
  kernels.for_each_row(cell + 2, cell + 3, cell + 3, [&](const detail::KernelRow& row) {
    rows.emplace_back(row.other ? 0 : row.name, row.other);
  });
  EXPECT_EQ(rows, (std::vector<std::pair<NameId, bool>>{{4, false}, {0, true}}));
}

}  // namespace
}  // namespace testing
}  // namespace stallwatch::collector
