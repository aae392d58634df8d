// SPDX-License-Identifier: MIT
#include "window_accumulator.h"

#include <gtest/gtest.h>

#include <random>

namespace stallwatch::collector::detail {
namespace {

CellData cell(std::uint32_t compute, std::uint32_t steps = 0) {
  CellData c;
  c.ns[kCompute] = compute;
  c.steps = steps;
  return c;
}

// Drives a history and three accumulators like a RankTracker does, and
// checks them against sums recomputed from scratch.
TEST(WindowAccumulator, RunningSumsMatchRecomputation) {
  constexpr std::int64_t kRes = 10;
  std::mt19937 rng(11);
  FinalizedHistory h(50, 40);
  h.cell_end = 100;
  std::vector<WindowAccumulator> accs;
  accs.emplace_back(5, kRes);
  accs.emplace_back(30, kRes);
  accs.emplace_back(0, kRes);
  std::int64_t total = 0;
  std::uint64_t total_steps = 0;
  std::int64_t last_step_ts = 0;
  for (int round = 0; round < 400; ++round) {
    const int n = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int i = 0; i < n; ++i) {
      const std::int64_t k = h.cell_end;
      const CellData c = cell(std::uniform_int_distribution<std::uint32_t>(0, 10)(rng), 1);
      const std::int64_t evicted_k = h.first_cell();
      auto evicted = h.cells.push_back(c);
      h.cell_end = k + 1;
      if (evicted) {
        for (auto& a : accs)
          a.on_cell_evicted(evicted_k, *evicted, h);
      }
      for (auto& a : accs)
        a.on_cell(k, c);
      total += c.ns[kCompute];
      ++total_steps;
      const StepRecord rec{k * kRes + 3, k * kRes + 3 - last_step_ts};
      last_step_ts = rec.ts_ns;
      const std::uint64_t evicted_seq = h.first_step();
      auto out = h.steps.push_back(rec);
      const std::uint64_t seq = h.step_end++;
      if (out) {
        for (auto& a : accs)
          a.on_step_evicted(evicted_seq, *out);
      }
      for (auto& a : accs)
        a.on_step(seq, rec);
    }
    const std::int64_t t = h.cell_end + std::uniform_int_distribution<int>(0, 2)(rng);
    for (auto& a : accs) {
      if (!a.is_totals()) a.move_to(t - a.window_cells(), h);
    }
    for (const auto& a : accs) {
      std::int64_t expect = 0;
      std::size_t expect_steps = 0;
      if (a.is_totals()) {
        expect = total;
        expect_steps = h.steps.size();
      } else {
        for (std::int64_t k = t - a.window_cells(); k < h.cell_end; ++k) {
          if (const CellData* c = h.cell(k)) expect += c->ns[kCompute];
        }
        for (std::uint64_t s = h.first_step(); s < h.step_end; ++s) {
          if (h.step(s).ts_ns >= (t - a.window_cells()) * kRes) ++expect_steps;
        }
      }
      ASSERT_EQ(a.sums().ns[kCompute], expect) << "round " << round << " w " << a.window_cells();
      ASSERT_EQ(a.durations().size(), expect_steps) << "round " << round;
    }
  }
  EXPECT_EQ(accs[2].sums().steps, static_cast<std::int64_t>(total_steps));
}

TEST(WindowAccumulator, MovingBackRebuildsFromHistory) {
  FinalizedHistory h(10, 10);
  h.cell_end = 0;
  WindowAccumulator a(3, 1);
  for (std::int64_t k = 0; k < 6; ++k) {
    h.cells.push_back(cell(1));
    h.cell_end = k + 1;
    a.on_cell(k, h.cells.back());
  }
  a.move_to(3, h);
  EXPECT_EQ(a.sums().ns[kCompute], 3);
  a.move_to(1, h);
  EXPECT_EQ(a.sums().ns[kCompute], 5);
  EXPECT_EQ(a.lo_cell(), 1);
}

TEST(WindowAccumulator, BulkCellsReachOnlyTheTotals) {
  WindowAccumulator w(3, 1);
  WindowAccumulator t(0, 1);
  Sums s;
  s.ns[kIo] = 42;
  w.on_bulk(s);
  t.on_bulk(s);
  EXPECT_EQ(w.sums().ns[kIo], 0);
  EXPECT_EQ(t.sums().ns[kIo], 42);
}

}  // namespace
}  // namespace stallwatch::collector::detail
