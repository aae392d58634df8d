// SPDX-License-Identifier: MIT
#include "table_layout.h"

#include <gtest/gtest.h>

namespace stallwatch::tui {
namespace {

std::vector<Column> sample() {
  return {
      {"NAME", 6, Align::kLeft, 0, 12},  // flexible
      {"A", 5, Align::kRight, 2},       {"B", 5, Align::kRight, 1},
      {"C", 5, Align::kRight, 2},       {"D", 5, Align::kRight, 0},
  };
}

TEST(TableLayoutTest, EverythingFitsAndSpareRoomGoesToTheFlexibleColumn) {
  // 6 + 4 * 5 + 4 gaps * 2 = 34.
  EXPECT_EQ(fit_columns(sample(), 34), (std::vector<int>{6, 5, 5, 5, 5}));
  EXPECT_EQ(fit_columns(sample(), 37), (std::vector<int>{9, 5, 5, 5, 5}));
  // The flexible column stops at its maximum.
  EXPECT_EQ(fit_columns(sample(), 100), (std::vector<int>{12, 5, 5, 5, 5}));
}

TEST(TableLayoutTest, NarrowTerminalsDropTheLeastImportantColumnsFirst) {
  // Highest drop order first; the rightmost among equals (C before A).
  // Each drop frees room that the flexible column takes, up to its maximum.
  EXPECT_EQ(fit_columns(sample(), 33), (std::vector<int>{12, 5, 5, 0, 5}));
  EXPECT_EQ(fit_columns(sample(), 24), (std::vector<int>{10, 0, 5, 0, 5}));
  EXPECT_EQ(fit_columns(sample(), 19), (std::vector<int>{12, 0, 0, 0, 5}));
  // Columns that are never dropped stay even when they do not fit.
  EXPECT_EQ(fit_columns(sample(), 5), (std::vector<int>{6, 0, 0, 0, 5}));
}

TEST(TableLayoutTest, RowsAlignUnderTheirHeadings) {
  const auto columns = sample();
  const auto widths = fit_columns(columns, 24);  // 26 with the 2-column indent
  const Line header = header_line(columns, widths, 2);
  const Line row =
      row_line(columns, widths, {{"job-a"}, {"1"}, {"2"}, {"3"}, {"4", Style::kBad}}, ">", 2);
  EXPECT_EQ(header.text(), "  NAME" + std::string(12, ' ') + "B" + std::string(6, ' ') + "D");
  EXPECT_EQ(row.text(), "> job-a" + std::string(11, ' ') + "2" + std::string(6, ' ') + "4");
  EXPECT_EQ(row.width(), 26);
  EXPECT_EQ(row.spans.back().style, Style::kBad);
}

TEST(TableLayoutTest, LongCellsAreCutToTheirColumn) {
  const std::vector<Column> columns{{"NAME", 6, Align::kLeft, 0}, {"N", 3, Align::kRight, 0}};
  const auto widths = fit_columns(columns, 11);
  const Line row = row_line(columns, widths, {{"a-very-long-job"}, {"12345"}}, "", 0);
  EXPECT_EQ(row.text(), "a-ver…  12…");
}

}  // namespace
}  // namespace stallwatch::tui
