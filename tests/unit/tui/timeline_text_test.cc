// SPDX-License-Identifier: MIT
#include "timeline_text.h"

#include <gtest/gtest.h>

namespace stallwatch::tui {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

TimelineRegion region(std::int64_t pid, std::int64_t tid, double from_s, double to_s,
                      const std::string& cls) {
  TimelineRegion r;
  r.pid = pid;
  r.tid = tid;
  r.start_ns = static_cast<std::int64_t>(from_s * kS);
  r.end_ns = static_cast<std::int64_t>(to_s * kS);
  r.cls = cls;
  return r;
}

TimelineView ten_seconds() {
  TimelineView t;
  t.from_ns = 0;
  t.to_ns = 10 * kS;
  t.threads = {{10, 10, "main", {}, {}}, {11, 11, "worker", {}, {}}};
  return t;
}

TEST(TimelineTextTest, OneRowPerThreadOneCharacterPerSlice) {
  TimelineView t = ten_seconds();
  t.regions = {region(10, 10, 0, 10, "pipeline"), region(10, 10, 0, 3, "fetch"),
               region(10, 10, 3, 10, "compute"), region(10, 10, 4, 5, "compute"),
               region(11, 11, 2, 6, "app_io")};
  const auto rows = timeline_rows(t, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "main 10");
  EXPECT_EQ(rows[0].cells, "FFFCCCCCCC");
  EXPECT_EQ(rows[1].label, "worker 11");
  EXPECT_EQ(rows[1].cells, "  AAAA    ");
}

TEST(TimelineTextTest, TheClassCoveringMostOfASliceWins) {
  TimelineView t = ten_seconds();
  t.threads.resize(1);
  t.regions = {region(10, 10, 0, 2.4, "fetch"), region(10, 10, 2.4, 10, "compute")};
  EXPECT_EQ(timeline_rows(t, 10)[0].cells, "FFCCCCCCCC");
  // On a tie the legend order decides: device busy before fetch.
  t.regions = {region(10, 10, 0, 0.5, "fetch"), region(10, 10, 0.5, 1, "device_busy")};
  EXPECT_EQ(timeline_rows(t, 10)[0].cells.substr(0, 2), "D ");
}

TEST(TimelineTextTest, NestedRegionsOfOneClassCountOnce) {
  TimelineView t = ten_seconds();
  t.threads.resize(1);
  // Three nested compute regions cover 0.4 s of the slice; fetch covers 0.6 s.
  t.regions = {region(10, 10, 0, 0.4, "compute"), region(10, 10, 0.1, 0.3, "compute"),
               region(10, 10, 0.1, 0.2, "compute"), region(10, 10, 0.4, 1.0, "fetch")};
  EXPECT_EQ(timeline_rows(t, 10)[0].cells[0], 'F');
}

TEST(TimelineTextTest, PipelineOnlyWhereNothingElseRunsAndUnknownClassesAreOther) {
  TimelineView t = ten_seconds();
  t.threads = {{10, 12, "main", {}, {}}};
  t.regions = {region(10, 12, 0, 10, "pipeline"), region(10, 12, 5, 6, "comm"),
               region(10, 12, 8, 9, "brand_new")};
  const auto rows = timeline_rows(t, 10);
  EXPECT_EQ(rows[0].label, "main 10/12");
  EXPECT_EQ(rows[0].cells, "-----M----");
  t.regions = {region(10, 12, 8, 9, "brand_new"), region(10, 12, 9.5, 12, "io")};
  EXPECT_EQ(timeline_rows(t, 10)[0].cells, "        .I");
}

TEST(TimelineTextTest, OpenRegionsAndRegionsOutsideTheSpanAreClipped) {
  TimelineView t = ten_seconds();
  t.threads.resize(1);
  t.regions = {region(10, 10, -5, 1, "fetch"), region(10, 10, 20, 30, "compute")};
  EXPECT_EQ(timeline_rows(t, 5)[0].cells, "F    ");
  EXPECT_TRUE(timeline_rows(t, 0).empty());
}

TEST(TimelineTextTest, CellsBecomeStyledRuns) {
  const Line line = timeline_cells_line("FFC  D");
  ASSERT_EQ(line.spans.size(), 4u);
  EXPECT_EQ(line.spans[0].text, "FF");
  EXPECT_EQ(line.spans[0].style, Style::kFetch);
  EXPECT_EQ(line.spans[1].style, Style::kCompute);
  EXPECT_EQ(line.spans[2].text, "  ");
  EXPECT_EQ(line.spans[3].style, Style::kDeviceBusy);
  EXPECT_EQ(line.text(), "FFC  D");
}

TEST(TimelineTextTest, AxisLabelsTheSpan) {
  EXPECT_EQ(timeline_axis(0, 10 * kS, 30),
            "-10 s" + std::string(8, ' ') + "-5 s" + std::string(10, ' ') + "now");
  EXPECT_EQ(timeline_axis(0, 5 * kS, 12), "-5 s" + std::string(5, ' ') + "now");
  EXPECT_EQ(timeline_axis(0, 10 * kS, 30).size(), 30u);
}

TEST(TimelineTextTest, LegendNamesEveryClass) {
  const std::string legend = timeline_legend().text();
  for (const ClassGlyph& g : class_glyphs()) {
    EXPECT_NE(legend.find(std::string(1, g.glyph) + " " + std::string(g.label)), std::string::npos)
        << g.cls;
  }
  EXPECT_EQ(class_glyph("fetch").glyph, 'F');
  EXPECT_EQ(class_glyph("nonsense").cls, "other");
}

}  // namespace
}  // namespace stallwatch::tui
