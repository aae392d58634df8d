// SPDX-License-Identifier: MIT
#include "sort_order.h"

#include <gtest/gtest.h>

#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

std::vector<std::int32_t> order(const std::vector<RankRow>& ranks, SortKey key) {
  std::vector<std::int32_t> out;
  for (const RankRow* r : sorted_ranks(ranks, key, "60s"))
    out.push_back(r->rank);
  return out;
}

std::vector<RankRow> ranks() {
  // rank, idle, stall, overlap, steps/s, verdict
  return {
      test::rank_row(0, 0.10, 0.05, 0.9, 2.0, "well-overlapped"),
      test::rank_row(1, 0.70, 0.60, 0.1, 0.8, "data-starved"),
      test::rank_row(2, 0.50, 0.02, std::nullopt, 1.5, "host-bound"),
      test::rank_row(3, 0.30, 0.20, 0.5, std::nullopt, "io-bound"),
      test::rank_row(4, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "idle"),
  };
}

TEST(SortOrderTest, EachOrderPutsWhatToLookAtFirstOnTop) {
  const auto r = ranks();
  EXPECT_EQ(order(r, SortKey::kRank), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(order(r, SortKey::kDataStall), (std::vector<std::int32_t>{1, 3, 0, 2, 4}));
  EXPECT_EQ(order(r, SortKey::kDeviceIdle), (std::vector<std::int32_t>{1, 2, 3, 0, 4}));
  EXPECT_EQ(order(r, SortKey::kSteps), (std::vector<std::int32_t>{1, 2, 0, 3, 4}));
  EXPECT_EQ(order(r, SortKey::kVerdict), (std::vector<std::int32_t>{1, 3, 2, 0, 4}));
}

TEST(SortOrderTest, TiesKeepRankOrderWhateverTheInputOrder) {
  std::vector<RankRow> r{test::rank_row(5, 0.5, 0.5, 0.5, 1.0, "data-starved"),
                         test::rank_row(2, 0.5, 0.5, 0.5, 1.0, "data-starved"),
                         test::rank_row(9, 0.5, 0.5, 0.5, 1.0, "data-starved")};
  for (SortKey key : {SortKey::kRank, SortKey::kDataStall, SortKey::kDeviceIdle, SortKey::kSteps,
                      SortKey::kVerdict}) {
    EXPECT_EQ(order(r, key), (std::vector<std::int32_t>{2, 5, 9})) << sort_label(key);
  }
}

TEST(SortOrderTest, AnUnknownWindowSortsByRank) {
  const auto r = ranks();
  std::vector<std::int32_t> out;
  for (const RankRow* row : sorted_ranks(r, SortKey::kDataStall, "no-such-window"))
    out.push_back(row->rank);
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
}

TEST(SortOrderTest, CyclesThroughEveryOrder) {
  SortKey key = SortKey::kRank;
  std::vector<std::string_view> labels;
  for (int i = 0; i < 5; ++i) {
    labels.push_back(sort_label(key));
    key = next_sort(key);
  }
  EXPECT_EQ(key, SortKey::kRank);
  EXPECT_EQ(labels, (std::vector<std::string_view>{"rank", "data stall ↓", "device idle ↓",
                                                   "steps/s ↑", "verdict"}));
  EXPECT_LT(verdict_rank("data-starved"), verdict_rank("io-bound"));
  EXPECT_LT(verdict_rank("well-overlapped"), verdict_rank("idle"));
  EXPECT_LT(verdict_rank("idle"), verdict_rank("something-new"));
}

}  // namespace
}  // namespace stallwatch::tui
