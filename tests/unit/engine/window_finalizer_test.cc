// SPDX-License-Identifier: MIT
#include "window_finalizer.h"

#include <gtest/gtest.h>

#include <vector>

namespace stallwatch::collector::detail {
namespace {

constexpr ClassMask kComputeBit = class_bit(EventClass::kCompute);

// A 10 ns grid, one window of 5 cells, 10 cells of history.
EngineConfig config() {
  EngineConfig c;
  c.resolution_ns = 10;
  c.windows_ns = {50};
  c.history_ns = 100;
  return c;
}

void add(WindowFinalizer& f, std::int64_t a, std::int64_t b) {
  BatchCoverage batch;
  batch.add(a, b, kComputeBit);
  f.add(batch);
}

SourceTracker open_source(std::int64_t begin, std::int64_t watermark) {
  SourceTracker s;
  OpenRegion r;
  r.key = region_key(1, 1);
  r.begin_ns = begin;
  r.begin_eff_ns = begin;
  r.mask = kComputeBit;
  s.open.add(r);
  s.watermark_ns = watermark;
  return s;
}

TEST(WindowFinalizer, FinalizedCellsReachTheWindowsAndTheTotals) {
  WindowFinalizer f(config());
  StepTracker steps;
  IoVolumeTracker io{10};
  LaunchTracker launches{10};
  EXPECT_EQ(f.horizon_ns(), kNoTime);
  f.on_start(0, true);
  add(f, 0, 35);
  f.finalize_to(30, {}, steps, io, launches);
  EXPECT_EQ(f.horizon_ns(), 30);
  EXPECT_EQ(f.history().cell_end, 3);
  ASSERT_NE(f.history().cell(2), nullptr);
  EXPECT_EQ(f.history().cell(2)->ns[kCompute], 10u);
  EXPECT_EQ(f.totals().sums().ns[kCompute], 30);
  EXPECT_EQ(f.windows().size(), 2u);
  EXPECT_EQ(f.windows()[0].sums().ns[kCompute], 30);

  const PendingCells p = f.pending_cells(50, {}, steps, io, launches);
  EXPECT_EQ(p.first_cell, 3);
  ASSERT_EQ(p.cells.size(), 2u);
  EXPECT_EQ(p.cells[0].ns[kCompute], 5);
  EXPECT_EQ(p.cells[1].ns[kCompute], 0);
}

TEST(WindowFinalizer, OpenRegionsCountUpToTheirWatermarkAsOfFinalization) {
  WindowFinalizer f(config());
  StepTracker steps;
  IoVolumeTracker io{10};
  LaunchTracker launches{10};
  f.on_start(0, true);
  std::vector<SourceTracker> sources;
  sources.push_back(open_source(0, 25));
  f.finalize_to(30, sources, steps, io, launches);
  EXPECT_EQ(f.history().cell(1)->ns[kCompute], 10u);
  EXPECT_EQ(f.history().cell(2)->ns[kCompute], 5u);
  // The watermark moves on: cells already final keep what they had.
  sources[0].watermark_ns = 45;
  const PendingCells p = f.pending_cells(50, sources, steps, io, launches);
  ASSERT_EQ(p.cells.size(), 2u);
  EXPECT_EQ(p.cells[0].ns[kCompute], 10);
  EXPECT_EQ(p.cells[1].ns[kCompute], 5);
  f.finalize_to(50, sources, steps, io, launches);
  EXPECT_EQ(f.history().cell(2)->ns[kCompute], 5u);
  EXPECT_EQ(f.totals().sums().ns[kCompute], 40);
}

TEST(WindowFinalizer, StepsGoToTheirCellsAndDurationsToTheHistory) {
  WindowFinalizer f(config());
  StepTracker steps;
  IoVolumeTracker io{10};
  LaunchTracker launches{10};
  f.on_start(0, true);
  steps.add_mark(5);
  steps.add_mark(15);
  steps.add_mark(28);
  f.finalize_to(20, {}, steps, io, launches);
  EXPECT_EQ(f.history().cell(0)->steps, 1u);
  EXPECT_EQ(f.history().cell(1)->steps, 1u);
  EXPECT_EQ(f.history().cell(1)->duration_sum_ns, 10);
  EXPECT_EQ(f.history().steps.size(), 1u);  // only steps with a duration
  EXPECT_EQ(f.totals().sums().steps, 2);
  EXPECT_EQ(f.totals().durations().size(), 1u);
  EXPECT_EQ(steps.pending(), 1u);

  const PendingCells p = f.pending_cells(30, {}, steps, io, launches);
  ASSERT_EQ(p.cells.size(), 1u);
  EXPECT_EQ(p.cells[0].steps, 1);
  ASSERT_EQ(p.durations.size(), 1u);
  EXPECT_EQ(p.durations[0].ts_ns, 28);
  EXPECT_EQ(p.durations[0].duration_ns, 13);
}

TEST(WindowFinalizer, AJumpPastTheHistoryGoesToTheTotalsOnly) {
  for (const bool expected : {false, true}) {
    WindowFinalizer f(config());
    StepTracker steps;
    IoVolumeTracker io{10};
    LaunchTracker launches{10};
    f.on_start(0, true);
    if (expected) f.expect_horizon(200);  // [0, 100) goes to the bulk at once
    add(f, 0, 200);
    f.finalize_to(200, {}, steps, io, launches);
    EXPECT_EQ(f.totals().sums().ns[kCompute], 200) << expected;
    EXPECT_EQ(f.history().first_cell(), 10) << expected;
    EXPECT_EQ(f.history().cell_end, 20) << expected;
    f.slide_to(20);
    EXPECT_EQ(f.windows()[0].sums().ns[kCompute], 50) << expected;
    EXPECT_GT(f.bytes(), 0u);
  }
}

TEST(WindowFinalizer, SlidingMovesTheWindowsNotTheTotals) {
  WindowFinalizer f(config());
  StepTracker steps;
  IoVolumeTracker io{10};
  LaunchTracker launches{10};
  f.on_start(0, true);
  add(f, 0, 80);
  f.finalize_to(80, {}, steps, io, launches);
  f.slide_to(8);
  EXPECT_EQ(f.windows()[0].lo_cell(), 3);
  EXPECT_EQ(f.windows()[0].sums().ns[kCompute], 50);
  EXPECT_EQ(f.totals().sums().ns[kCompute], 80);
}

TEST(WindowFinalizer, HistoryStartsAtTheRanksStartUntilSomethingIsFinal) {
  WindowFinalizer f(config());
  StepTracker steps;
  IoVolumeTracker io{10};
  LaunchTracker launches{10};
  f.on_start(35, true);
  EXPECT_EQ(f.history().cell_end, 3);
  f.on_start(15, false);
  EXPECT_EQ(f.history().cell_end, 1);
  f.finalize_to(30, {}, steps, io, launches);
  EXPECT_EQ(f.history().first_cell(), 1);
  f.on_start(5, false);
  EXPECT_EQ(f.history().first_cell(), 1);
  EXPECT_EQ(f.history().cell_end, 3);
}

}  // namespace
}  // namespace stallwatch::collector::detail
