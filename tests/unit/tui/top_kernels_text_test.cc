// SPDX-License-Identifier: MIT
// A rank's top kernels by device time in `stallwatch top`: parsed from the API
// and shown in the rank detail view, in the web page's words.

#include "top_kernels_text.h"

#include <gtest/gtest.h>

#include "api_parse.h"
#include "frame.h"
#include "text_width.h"
#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

constexpr const char* kKernelsRow = R"({"rank": 0, "state": "active", "processes": [],
  "windows": {"10s": {"wall_seconds": 10}},
  "top_kernels": {
    "10s": {"kernels": [
      {"name": "ampere_sgemm_128x64_tn", "device_seconds": 4.5, "count": 9000},
      {"name": "memcpy HtoD", "device_seconds": 0.25, "count": 50}],
      "other": {"device_seconds": 0.0005, "count": 100}},
    "60s": {"kernels": [], "other": {"device_seconds": 0, "count": 0}}}})";

RankRow kernels_rank() {
  const auto parsed =
      parse_job_detail(std::string(R"({"job": "alpha", "ranks": [)") + kKernelsRow + "]}");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return parsed.ok() ? parsed.value->ranks.at(0) : RankRow{};
}

std::vector<std::string> texts(const std::vector<Line>& lines, int width) {
  std::vector<std::string> out;
  for (const Line& l : lines)
    out.push_back(clip(l.text(), width));
  return out;
}

const std::string* line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines) {
    if (l.find(needle) != std::string::npos) return &l;
  }
  return nullptr;
}

TEST(TopKernelsTextTest, ParsesEachWindowsKernelsAndTheRest) {
  const RankRow r = kernels_rank();
  ASSERT_EQ(r.top_kernels.size(), 2u);
  const TopKernelsView& t = r.top_kernels.at("10s");
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.kernels[0].name, "ampere_sgemm_128x64_tn");
  EXPECT_EQ(t.kernels[0].device_seconds, 4.5);
  EXPECT_EQ(t.kernels[0].count, 9000);
  EXPECT_EQ(t.kernels[1].name, "memcpy HtoD");
  EXPECT_EQ(t.other.count, 100);
  EXPECT_TRUE(has_top_kernels(r));
  EXPECT_FALSE(has_top_kernels(RankRow{}));
}

TEST(TopKernelsTextTest, OneRowPerKernelMostTimeFirstWithShareAndMeanThenTheRest) {
  const RankRow r = kernels_rank();
  const auto lines = texts(top_kernels_lines(r, "10s", 100), 100);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[0].find("TOP KERNELS BY DEVICE TIME 10 s"), std::string::npos) << lines[0];
  for (const char* part : {"KERNEL", "DEVICE", "SHARE", "COUNT", "MEAN"})
    EXPECT_NE(lines[1].find(part), std::string::npos) << part << " in " << lines[1];
  for (const char* part : {"ampere_sgemm_128x64_tn", "4.50 s", "45.0%", "9,000", "500 µs"})
    EXPECT_NE(lines[2].find(part), std::string::npos) << part << " in " << lines[2];
  for (const char* part : {"memcpy HtoD", "250 ms", "2.5%", "50", "5.00 ms"})
    EXPECT_NE(lines[3].find(part), std::string::npos) << part << " in " << lines[3];
  for (const char* part : {"other kernels", "500 µs", "100"})
    EXPECT_NE(lines[4].find(part), std::string::npos) << part << " in " << lines[4];

  const auto empty = texts(top_kernels_lines(r, "60s", 100), 100);
  ASSERT_EQ(empty.size(), 3u);
  EXPECT_NE(empty[2].find("no device work in this window"), std::string::npos);
  const auto total = texts(top_kernels_lines(r, "total", 100), 100);
  ASSERT_EQ(total.size(), 1u);
  EXPECT_NE(total[0].find("kept per window, not for total"), std::string::npos);
  EXPECT_TRUE(top_kernels_lines(RankRow{}, "10s", 100).empty()) << "no kernels, no section";
}

TEST(TopKernelsTextTest, WithoutTheWindowsWallTimeTheShareIsUnknown) {
  RankRow r = kernels_rank();
  r.windows.clear();
  const auto lines = texts(top_kernels_lines(r, "10s", 100), 100);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[2].find('%'), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("4.50 s"), std::string::npos) << lines[2];
}

TEST(TopKernelsTextTest, RankDetailShowsTheTopKernelsOfTheSelectedWindow) {
  TopModel model = test::two_job_model();
  TopState state;
  reconcile(state, model);
  state.view = View::kDetail;
  state.rank = 0;
  state.window = "10s";
  RankRow& r = model.detail->ranks.at(0);
  r.top_kernels = kernels_rank().top_kernels;
  const Canvas c = compose_frame(state, model, 110, 0);
  std::vector<std::string> lines;
  for (const Line& l : c.lines)
    lines.push_back(clip(l.text(), c.width));
  EXPECT_NE(line_with(lines, "TOP KERNELS BY DEVICE TIME"), nullptr);
  const std::string* first = line_with(lines, "ampere_sgemm_128x64_tn");
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first->find("4.50 s"), std::string::npos);

  r.top_kernels.clear();
  const Canvas without = compose_frame(state, model, 110, 0);
  for (const Line& l : without.lines)
    EXPECT_EQ(l.text().find("TOP KERNELS"), std::string::npos) << "no kernels, no section";
}

}  // namespace
}  // namespace stallwatch::tui
