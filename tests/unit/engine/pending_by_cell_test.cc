// SPDX-License-Identifier: MIT
// PendingByCell: per-cell sums kept in cell order whatever order they come in.

#include "pending_by_cell.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace stallwatch::collector::detail {
namespace {

using Cells = std::vector<std::pair<std::int64_t, int>>;

Cells all(const PendingByCell<int>& p, std::int64_t until) {
  Cells out;
  p.for_each(until, [&](std::int64_t cell, const int& v) { out.emplace_back(cell, v); });
  return out;
}

TEST(PendingByCell, AtFindsOrAddsACellKeepingCellOrder) {
  PendingByCell<int> p;
  EXPECT_TRUE(p.empty());
  p.at(5) += 1;
  p.at(5) += 1;   // the newest cell
  p.at(9) += 10;  // after it
  p.at(2) += 7;   // before every cell
  p.at(7) += 3;   // in the middle
  p.at(5) += 1;   // an older cell
  EXPECT_EQ(p.size(), 4u);
  EXPECT_FALSE(p.empty());
  EXPECT_EQ(all(p, 100), (Cells{{2, 7}, {5, 3}, {7, 3}, {9, 10}}));
  EXPECT_EQ(all(p, 7), (Cells{{2, 7}, {5, 3}})) << "for_each stops before until_cell";
  EXPECT_GE(p.bytes(), 4 * sizeof(std::pair<std::int64_t, int>));
}

TEST(PendingByCell, TakeBeforeHandsOverAndForgetsTheEarlierCells) {
  PendingByCell<std::vector<int>> p;
  p.at(3).push_back(1);
  p.at(1).push_back(2);
  p.at(8).push_back(3);
  std::vector<std::pair<std::int64_t, std::vector<int>>> taken;
  p.take_before(
      8, [&](std::int64_t cell, std::vector<int>& v) { taken.emplace_back(cell, std::move(v)); });
  EXPECT_EQ(taken, (std::vector<std::pair<std::int64_t, std::vector<int>>>{{1, {2}}, {3, {1}}}));
  EXPECT_EQ(p.size(), 1u);
  p.take_before(8, [](std::int64_t, std::vector<int>&) { ADD_FAILURE() << "nothing before 8"; });
  EXPECT_EQ(p.at(8), std::vector<int>{3}) << "the later cell stays";
  p.take_before(100, [](std::int64_t, std::vector<int>&) {});
  EXPECT_TRUE(p.empty());
}

}  // namespace
}  // namespace stallwatch::collector::detail
