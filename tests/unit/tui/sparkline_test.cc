// SPDX-License-Identifier: MIT
#include "sparkline.h"

#include <gtest/gtest.h>

#include <vector>

#include "text_width.h"

namespace stallwatch::tui {
namespace {

using Values = std::vector<std::optional<double>>;

TEST(SparklineTest, ScalesRatiosToEightLevels) {
  const Values v{0.0, 1.0 / 7, 2.0 / 7, 3.0 / 7, 4.0 / 7, 5.0 / 7, 6.0 / 7, 1.0};
  EXPECT_EQ(sparkline(v, 8), "▁▂▃▄▅▆▇█");
}

TEST(SparklineTest, ShowsTheNewestValuesRightAligned) {
  const Values v{1.0, 0.0, 1.0};
  EXPECT_EQ(sparkline(v, 5), "  █▁█");
  EXPECT_EQ(sparkline(v, 2), "▁█");
  EXPECT_EQ(display_width(sparkline(v, 7)), 7);
}

TEST(SparklineTest, MissingValuesAreGapsAndOutOfRangeIsClamped) {
  const Values v{std::nullopt, 2.0, -1.0};
  EXPECT_EQ(sparkline(v, 3), " █▁");
  EXPECT_EQ(sparkline({}, 3), "   ");
  EXPECT_EQ(sparkline(v, 0), "");
}

TEST(SparklineTest, CustomRange) {
  const Values v{10.0, 20.0};
  EXPECT_EQ(sparkline(v, 2, 10.0, 20.0), "▁█");
}

TEST(RatioBarTest, FillsToAnEighthOfAColumn) {
  EXPECT_EQ(ratio_bar(0.0, 4), "    ");
  EXPECT_EQ(ratio_bar(1.0, 4), "████");
  EXPECT_EQ(ratio_bar(0.5, 4), "██  ");
  EXPECT_EQ(ratio_bar(0.5625, 4), "██▎ ");  // 18/32
  EXPECT_EQ(ratio_bar(0.45, 10), "████▌     ");
  EXPECT_EQ(ratio_bar(1.5, 3), "███");
  EXPECT_EQ(ratio_bar(std::nullopt, 3), "   ");
  for (double r = 0; r <= 1.0; r += 0.01)
    EXPECT_EQ(display_width(ratio_bar(r, 10)), 10) << r;
}

}  // namespace
}  // namespace stallwatch::tui
