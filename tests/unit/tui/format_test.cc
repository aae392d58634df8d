// SPDX-License-Identifier: MIT
#include "format.h"

#include <gtest/gtest.h>

#include <limits>

namespace stallwatch::tui {
namespace {

TEST(FormatTest, PercentHasOneDecimalAndDashForMissing) {
  EXPECT_EQ(format_percent(0.6134), "61.3%");
  EXPECT_EQ(format_percent(1.0), "100.0%");
  EXPECT_EQ(format_percent(0.0), "0.0%");
  EXPECT_EQ(format_percent(0.456, 0), "46%");
  EXPECT_EQ(format_percent(std::nullopt), "—");
  EXPECT_EQ(format_percent(std::numeric_limits<double>::quiet_NaN()), "—");
}

TEST(FormatTest, SecondsPickTheUnitAPersonReadsFastest) {
  EXPECT_EQ(format_seconds(0.0), "0 s");
  EXPECT_EQ(format_seconds(0.00042), "420 µs");
  EXPECT_EQ(format_seconds(0.0125), "12.5 ms");
  EXPECT_EQ(format_seconds(0.25), "250 ms");
  EXPECT_EQ(format_seconds(4.213), "4.21 s");
  EXPECT_EQ(format_seconds(12.0), "12.0 s");
  EXPECT_EQ(format_seconds(185.0), "3m 05s");
  EXPECT_EQ(format_seconds(3720.0), "1h 02m");
  EXPECT_EQ(format_seconds(-0.5), "-500 ms");
  EXPECT_EQ(format_seconds(std::nullopt), "—");
}

TEST(FormatTest, RatesKeepThreeSignificantFigures) {
  EXPECT_EQ(format_rate(0.854), "0.85");
  EXPECT_EQ(format_rate(12.44), "12.4");
  EXPECT_EQ(format_rate(250.0), "250");
  EXPECT_EQ(format_rate(1234.0), "1.2k");
  EXPECT_EQ(format_rate(34000.0), "34k");
  EXPECT_EQ(format_rate(3.4e6), "3.4M");
  EXPECT_EQ(format_rate(std::numeric_limits<double>::infinity()), "—");
}

TEST(FormatTest, CountsAndBytes) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(format_loss(12, 3), "12/3");
}

TEST(FormatTest, WindowLabels) {
  EXPECT_EQ(window_label("10s"), "10 s");
  EXPECT_EQ(window_label("300s"), "300 s");
  EXPECT_EQ(window_label("total"), "total");
  EXPECT_EQ(window_label("s"), "s");
  EXPECT_EQ(window_label("1m"), "1m");
}

}  // namespace
}  // namespace stallwatch::tui
