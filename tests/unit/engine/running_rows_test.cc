// SPDX-License-Identifier: MIT
// Running window sums of per-key rows (RunningRows) and the top kernels and
// top files read from them: every operator on its own, then random streams
// (cells entering and leaving the windows, bounded cells with "other" rows,
// windows that move back, history trimmed) checked against a from-scratch
// merge of the rows.

#include "running_rows.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engine/name_table.h"
#include "file_io_tracker.h"
#include "kernel_tracker.h"
#include "top_files.h"
#include "top_kernels.h"

namespace stallwatch::collector::testing {
namespace {

using detail::CellRows;
using detail::KernelRow;
using detail::KernelSums;
using detail::KernelTracker;
using detail::RunningKernels;

KernelRow row(NameId name, std::int64_t ns, std::int64_t count = 1) {
  return KernelRow{name, KernelSums{ns, count}, false};
}
KernelRow other_row(std::int64_t ns, std::int64_t count) {
  return KernelRow{NameTable::kEmpty, KernelSums{ns, count}, true};
}

std::map<NameId, std::pair<std::int64_t, std::int64_t>> table(const RunningKernels& run) {
  std::map<NameId, std::pair<std::int64_t, std::int64_t>> out;
  run.for_each([&](NameId n, const KernelSums& s) { out[n] = {s.device_ns, s.count}; });
  return out;
}

TEST(RunningRows, AddSumsByNameAndSubDropsANameWhoseCountReturnsToZero) {
  RunningKernels run(3);
  run.add(row(1, 10));
  run.add(row(2, 5));
  run.add(row(1, 7, 2));
  run.add(other_row(4, 3));
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {17, 3}}, {2, {5, 1}}}));
  EXPECT_EQ(run.other().device_ns, 4);
  EXPECT_EQ(run.other().count, 3);
  run.sub(row(1, 10));
  run.sub(row(2, 5));
  run.sub(other_row(4, 3));
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {7, 2}}}));
  EXPECT_EQ(run.size(), 1u);
  EXPECT_EQ(run.other().count, 0);
  // A name with no device time but with work stays until its count is 0.
  run.add(row(3, 0));
  EXPECT_EQ(run.size(), 2u);
  run.sub(row(3, 0));
  run.sub(row(1, 7, 2));
  EXPECT_EQ(run.size(), 0u);
}

TEST(RunningRows, ForEachWithLaysRowsOverTheTableForOneReadOnly) {
  RunningKernels run(3);
  run.add(row(1, 10));
  run.add(row(2, 5));
  std::map<NameId, std::pair<std::int64_t, std::int64_t>> seen;
  run.for_each_with({row(2, 1, 4), row(7, 3)}, [&](NameId n, const KernelSums& s) {
    EXPECT_TRUE(seen.emplace(n, std::pair{s.device_ns, s.count}).second);
  });
  EXPECT_EQ(seen, (decltype(seen){{1, {10, 1}}, {2, {6, 5}}, {7, {3, 1}}}));
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {10, 1}}, {2, {5, 1}}}));
}

TEST(RunningRows, CellsEnterFromTheStartOnAndLeaveByEvictionOrBySliding) {
  CellRows<KernelRow> cells;
  RunningKernels run(2);
  const auto push = [&](std::int64_t cell, std::vector<KernelRow> rows) {
    run.on_cell(cell, rows);
    cells.push(cell, std::move(rows));
  };
  push(10, {row(1, 100), other_row(3, 2)});
  push(11, {row(1, 50), row(2, 20)});
  run.move_to(11, cells);  // cell 10 leaves
  EXPECT_EQ(run.lo_cell(), 11);
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {50, 1}}, {2, {20, 1}}}));
  EXPECT_EQ(run.other().count, 0);
  run.on_cell(9, {row(5, 1)});  // before the window: not taken
  EXPECT_EQ(run.size(), 2u);
  push(12, {row(2, 1)});
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {50, 1}}, {2, {21, 2}}}));
  // Evicting a cell before the start changes nothing; one in it moves it.
  run.on_evicted(10, {row(1, 100), other_row(3, 2)});
  EXPECT_EQ(run.lo_cell(), 11);
  EXPECT_EQ(run.size(), 2u);
  run.on_evicted(11, {row(1, 50), row(2, 20)});
  EXPECT_EQ(run.lo_cell(), 12);
  EXPECT_EQ(table(run), (decltype(table(run)){{2, {1, 1}}}));
  // Moving back rebuilds from the cells kept (10 to 12 here).
  run.move_to(10, cells);
  EXPECT_EQ(run.lo_cell(), 10);
  EXPECT_EQ(table(run), (decltype(table(run)){{1, {150, 2}}, {2, {21, 2}}}));
  EXPECT_EQ(run.other().device_ns, 3);
  EXPECT_EQ(run.other().count, 2);
  EXPECT_GT(run.bytes(), 0u);
}

TEST(CellRows, ReadsTheRowsOfACellRangeAndPopsOldCellsInOrder) {
  CellRows<KernelRow> cells;
  EXPECT_EQ(cells.end_cell(), std::numeric_limits<std::int64_t>::min());
  cells.push(3, {row(1, 1)});
  cells.push(5, {row(2, 2), row(3, 3)});
  cells.push(8, {row(4, 4)});
  EXPECT_EQ(cells.end_cell(), 9);
  EXPECT_EQ(cells.rows(), 4u);
  std::vector<NameId> seen;
  cells.for_each_row(4, 8, [&](const KernelRow& r) { seen.push_back(r.name); });
  EXPECT_EQ(seen, (std::vector<NameId>{2, 3}));
  std::vector<std::int64_t> popped;
  cells.pop_before(
      8, [&](std::int64_t cell, const std::vector<KernelRow>&) { popped.push_back(cell); });
  EXPECT_EQ(popped, (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(cells.rows(), 1u);
  EXPECT_FALSE(cells.empty());
}

// Random streams through a KernelTracker as RankTracker drives it: work
// before, inside and after the horizon, the horizon moving by steps and
// jumps (cells past the history go to no window), the history trimmed, and
// ticks whose end mostly moves forward but sometimes back (before the
// newest finalized cell, too). At every tick each window's running sums with
// the pending names laid over must equal a from-scratch merge of its rows,
// and the top kernels read from them those merged from the rows.
TEST(RunningRows, RandomStreamsMatchAFromScratchMergeOfTheRows) {
  constexpr std::int64_t kRes = 1000;
  constexpr std::int64_t kHistory = 12;  // cells
  std::size_t ticks = 0, with_other = 0, fallbacks = 0, dropped = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    NameTable names;
    std::vector<NameId> ids;
    for (int n = 0; n < 12; ++n)  // interned out of name order: ties go by name
      ids.push_back(names.intern("kernel_" + std::string(1, static_cast<char>('z' - n * 2))));
    const std::vector<std::int64_t> windows{1, 3, 7, 20};
    KernelTracker kernels(kRes, static_cast<std::size_t>(pick(1, 4)), windows);
    std::int64_t cell_end = 0;  // the history's end
    std::int64_t kt = 0;
    for (int step = 0; step < 120; ++step) {
      for (std::int64_t n = pick(0, 15); n > 0; --n) {
        const std::int64_t end = (cell_end + pick(-2, 4)) * kRes + pick(0, kRes - 1);
        // Few distinct durations: ties in a cell and in a window.
        kernels.add(end, ids[static_cast<std::size_t>(pick(0, 11))], pick(0, 3) * 50);
      }
      const int move = static_cast<int>(pick(0, 9));
      if (move >= 3) {
        const std::int64_t k1 = cell_end + (move == 9 ? pick(kHistory, 3 * kHistory) : pick(0, 2));
        if (k1 > cell_end) {
          kernels.finalize(cell_end, k1, std::max(cell_end, k1 - kHistory));
          if (k1 - kHistory > cell_end) ++dropped;
          cell_end = k1;
          kernels.trim(cell_end - kHistory);
        }
      }
      // The tick's end: mostly at or past the horizon, sometimes before it.
      kt = pick(0, 9) == 0 ? cell_end - pick(0, 4) : std::max(kt, cell_end + pick(0, 2));
      ++ticks;
      for (std::size_t w = 0; w < windows.size(); ++w) {
        const std::int64_t lo = kt - windows[w];
        std::map<NameId, std::pair<std::int64_t, std::int64_t>> expected;
        KernelSums other;
        kernels.for_each_row(lo, kt, cell_end, [&](const KernelRow& r) {
          if (r.other) {
            other.add(r.sums);
          } else {
            expected[r.name].first += r.sums.device_ns;
            expected[r.name].second += r.sums.count;
          }
        });
        if (other.count > 0) ++with_other;
        RunningKernels* run = kernels.running(w, kt);
        if (run == nullptr) {
          ++fallbacks;
          continue;
        }
        // The pending names, merged, laid over the running sums.
        std::map<NameId, KernelSums> pending;
        kernels.for_each_pending_row(lo, kt, cell_end,
                                     [&](const KernelRow& r) { pending[r.name].add(r.sums); });
        std::vector<KernelRow> over;
        for (const auto& [name, sums] : pending)
          over.push_back(KernelRow{name, sums, false});
        const auto before = table(*run);
        std::map<NameId, std::pair<std::int64_t, std::int64_t>> seen;
        run->for_each_with(over, [&](NameId n, const KernelSums& s) {
          EXPECT_TRUE(seen.emplace(n, std::pair{s.device_ns, s.count}).second) << "twice: " << n;
        });
        ASSERT_EQ(seen, expected) << "seed " << seed << " step " << step << " window "
                                  << windows[w];
        ASSERT_EQ(table(*run), before) << "seed " << seed;
        ASSERT_EQ(run->other().device_ns, other.device_ns) << "seed " << seed;
        ASSERT_EQ(run->other().count, other.count) << "seed " << seed;
      }
      ASSERT_EQ(detail::running_top_kernels(kernels, kt, cell_end, names),
                detail::merge_top_kernels(kernels, kt, cell_end, names))
          << "seed " << seed << " step " << step;
    }
  }
  // The streams reached every case.
  EXPECT_GT(ticks, 30'000u);
  EXPECT_GT(with_other, 1000u);
  EXPECT_GT(fallbacks, 100u);
  EXPECT_GT(dropped, 100u);
}

// The same for a FileIoTracker and the top files read from it: several file
// keys share a path (a worker reads what its parent opened) and some have
// none, so the running sums by file are merged by path at every read.
TEST(RunningRows, RandomFileStreamsMatchAFromScratchMergeOfTheRows) {
  constexpr std::int64_t kRes = 1000;
  constexpr std::int64_t kHistory = 12;  // cells
  const std::vector<std::string> paths{"/data/a", "/data/b", "/data/c", "/data/d"};
  const detail::FilePathOf path_of = [&](detail::FileKey key) -> std::string_view {
    return key.file % 5 == 4 ? std::string_view("<unknown file>") : paths[key.file % 5];
  };
  std::size_t ticks = 0, fallbacks = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    const std::vector<std::int64_t> windows{1, 3, 7, 20};
    detail::FileIoTracker files(kRes, static_cast<std::size_t>(pick(1, 4)), 6, windows);
    std::int64_t cell_end = 0;
    std::int64_t kt = 0;
    for (int step = 0; step < 100; ++step) {
      for (std::int64_t n = pick(0, 15); n > 0; --n) {
        const std::int64_t end = (cell_end + pick(-2, 4)) * kRes + pick(0, kRes - 1);
        const detail::FileKey key{static_cast<std::uint16_t>(pick(0, 2)),
                                  static_cast<std::uint32_t>(pick(0, 9))};
        files.add(end, key, pick(0, 3) * 50,
                  pick(0, 1) == 0 ? detail::IoDirection::kRead : detail::IoDirection::kWrite,
                  pick(-1, 4096));
      }
      const int move = static_cast<int>(pick(0, 9));
      if (move >= 3) {
        const std::int64_t k1 = cell_end + (move == 9 ? pick(kHistory, 3 * kHistory) : pick(0, 2));
        if (k1 > cell_end) {
          files.finalize(cell_end, k1, std::max(cell_end, k1 - kHistory));
          cell_end = k1;
          files.trim(cell_end - kHistory);
        }
      }
      kt = pick(0, 9) == 0 ? cell_end - pick(0, 4) : std::max(kt, cell_end + pick(0, 2));
      ++ticks;
      for (std::size_t w = 0; w < windows.size(); ++w) {
        if (files.running(w, kt) == nullptr) ++fallbacks;
      }
      ASSERT_EQ(detail::running_top_files(files, kt, cell_end, path_of, 2),
                detail::merge_top_files(files, kt, cell_end, path_of, 2))
          << "seed " << seed << " step " << step;
    }
  }
  EXPECT_GT(ticks, 15'000u);
  EXPECT_GT(fallbacks, 100u);
}

}  // namespace
}  // namespace stallwatch::collector::testing
