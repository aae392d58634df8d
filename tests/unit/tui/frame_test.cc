// SPDX-License-Identifier: MIT
#include "frame.h"

#include <gtest/gtest.h>

#include "main_view.h"
#include "table_layout.h"
#include "text_width.h"
#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

std::vector<std::string> lines_of(const Canvas& c) {
  std::vector<std::string> out;
  for (const Line& l : c.lines) {
    std::string text = clip(l.text(), c.width);
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out.push_back(text);
  }
  return out;
}

bool contains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines) {
    if (l.find(needle) != std::string::npos) return true;
  }
  return false;
}

class FrameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = test::two_job_model();
    reconcile(state_, model_);
  }
  std::vector<std::string> frame(int width, int height) {
    return lines_of(compose_frame(state_, model_, width, height));
  }

  TopModel model_;
  TopState state_;
};

TEST_F(FrameTest, OncePrintsJobsRanksAndAlertsWithoutKeysOrCursor) {
  const auto lines = frame(160, 0);
  EXPECT_EQ(lines[0], "stallwatch top · http://127.0.0.1:8787 · window 60 s · sort rank");
  EXPECT_NE(lines[1].find("JOB"), std::string::npos);
  EXPECT_EQ(lines[2].substr(0, 9), "> alpha  ");  // the job whose ranks are shown
  EXPECT_EQ(lines[3].substr(0, 8), "  beta  ");
  EXPECT_TRUE(contains(lines, "alpha · 3 ranks · 60 s verdict data-starved"));
  EXPECT_TRUE(contains(lines, "STALL 10 s"));
  EXPECT_EQ(lines.back(), "alerts: none");
  EXPECT_FALSE(contains(lines, "q quit"));
  for (const std::string& l : lines)
    EXPECT_LE(display_width(l), 160) << l;
  // No rank row carries the cursor in --once.
  for (std::size_t i = 6; i < lines.size(); ++i)
    EXPECT_NE(lines[i].substr(0, 1), ">") << lines[i];
}

TEST_F(FrameTest, RankRowsShowTheWindowsFiguresAndVerdicts) {
  const auto lines = frame(160, 0);
  std::string rank0;
  for (const std::string& l : lines) {
    if (l.find("data-starved") != std::string::npos && l.find("   0  ") == 2) rank0 = l;
  }
  ASSERT_FALSE(rank0.empty());
  EXPECT_NE(rank0.find("70.0%"), std::string::npos);   // device idle
  EXPECT_NE(rank0.find("60.0%"), std::string::npos);   // data stall
  EXPECT_NE(rank0.find("36.0 s"), std::string::npos);  // unoverlapped app I/O
  EXPECT_NE(rank0.find("█" + std::string(11, ' ') + "10%"),
            std::string::npos);                      // overlap bar and figure
  EXPECT_NE(rank0.find("0.80"), std::string::npos);  // steps/s
}

TEST_F(FrameTest, TheJobLineWarnsAboutRanksWhoseClockIsOff) {
  EXPECT_FALSE(contains(frame(200, 0), "clock warning"));
  ASSERT_TRUE(model_.detail.has_value());
  ASSERT_GE(model_.detail->ranks.size(), 2u);
  model_.detail->ranks[1].clock_offset_seconds = 90;
  model_.detail->ranks[1].clock_warning = true;
  EXPECT_TRUE(contains(frame(200, 0), "alpha · 3 ranks"));
  EXPECT_TRUE(contains(frame(200, 0), " · clock warning: rank 1 +1m 30s"));
}

TEST_F(FrameTest, InteractiveFrameFillsTheHeightWithKeysOnTheLastLine) {
  model_.interactive = true;
  model_.link.state = LinkView::State::kLive;
  const auto lines = frame(120, 30);
  ASSERT_EQ(lines.size(), 30u);
  EXPECT_NE(lines[0].find("● live"), std::string::npos);
  EXPECT_EQ(lines[28], "alerts: none");
  EXPECT_EQ(lines[29].substr(0, 6), "q quit");
  EXPECT_TRUE(contains(lines, ">    0  "));  // the cursor is on rank 0
}

TEST_F(FrameTest, ShortTerminalsCutTheBodyNotTheStatusLines) {
  model_.interactive = true;
  const auto lines = frame(120, 8);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[6], "alerts: none");
}

TEST_F(FrameTest, ManyRanksArePagedAroundTheCursor) {
  model_.interactive = true;
  for (int r = 3; r < 40; ++r)
    model_.detail->ranks.push_back(test::rank_row(r, 0.1, 0.1, 0.5, 1.0, "idle"));
  state_.rank = 37;
  const auto lines = frame(120, 20);
  EXPECT_TRUE(contains(lines, ">   37  "));
  EXPECT_TRUE(contains(lines, "ranks "));
  EXPECT_TRUE(contains(lines, " of 40 (PgUp/PgDn)"));
  EXPECT_FALSE(contains(lines, "    0  active"));
}

TEST_F(FrameTest, NarrowTerminalsKeepVerdictAndStallColumns) {
  const auto wide = fit_columns(rank_columns(model_), 158);
  const auto narrow = fit_columns(rank_columns(model_), 78);
  EXPECT_GT(wide[9], 0);  // DEVICE shown when wide
  EXPECT_GT(wide[3], 0);  // CAUSE too
  EXPECT_EQ(narrow[9], 0);
  for (std::size_t i : {0u, 2u, 4u, 5u})
    EXPECT_GT(narrow[i], 0) << i;  // rank, verdict, idle, stall
  for (const Line& l : compose_frame(state_, model_, 80, 0).lines)
    EXPECT_LE(l.width(), 80) << l.text();
}

TEST_F(FrameTest, ReconnectingBannerKeepsTheLastData) {
  model_.interactive = true;
  model_.link = {LinkView::State::kReconnecting, "connection refused", 2};
  const auto lines = frame(160, 30);
  EXPECT_NE(lines[0].find("reconnecting…"), std::string::npos);
  EXPECT_EQ(lines[1],
            "reconnecting… lost the collector at http://127.0.0.1:8787: connection refused · "
            "retrying in 2 s · "
            "showing the last data received");
  EXPECT_TRUE(contains(lines, "alpha"));
}

TEST_F(FrameTest, EmptyStatesSayWhatToDo) {
  model_.jobs.clear();
  model_.detail.reset();
  EXPECT_TRUE(contains(frame(120, 0),
                       "no jobs yet — start a training job with `python -m stallwatch.run …`"));
  TopModel nothing;
  nothing.interactive = true;
  nothing.url = "http://h:1";
  nothing.link = {LinkView::State::kConnecting, "connection refused", 1};
  TopState fresh;
  const auto lines = lines_of(compose_frame(fresh, nothing, 120, 10));
  EXPECT_EQ(lines[1],
            "cannot reach the collector at http://h:1: connection refused · retrying in 1 s");
  EXPECT_TRUE(contains(lines, "waiting for the collector…"));
  nothing.link.error = "HTTP 401: missing or wrong bearer token";
  EXPECT_EQ(lines_of(compose_frame(fresh, nothing, 120, 10))[1],
            "refused by the collector at http://h:1: HTTP 401: missing or wrong bearer token · "
            "retrying in 1 s");
}

TEST_F(FrameTest, DetailShowsEveryWindowAndTheTimeline) {
  state_.view = View::kDetail;
  state_.rank = 0;
  TimelineView t;
  t.job = "alpha";
  t.rank = 0;
  t.from_ns = 0;
  t.to_ns = 10'000'000'000;
  t.threads = {{42, 42, "main", {}, {}}};
  t.regions = {{0, 6'000'000'000, false, 42, 42, "fetch", "fetch.iter"},
               {6'000'000'000, 10'000'000'000, false, 42, 42, "compute", "step"}};
  model_.timeline = t;
  const auto lines = frame(100, 0);
  EXPECT_TRUE(contains(lines, "rank 0 of alpha · active · verdict data-starved · device cupti"));
  EXPECT_TRUE(contains(lines, "[60 s]"));
  EXPECT_TRUE(contains(lines, "TIMELINE last 10 s"));
  std::string row;
  for (const std::string& l : lines) {
    if (l.find("main 42") != std::string::npos) row = l;
  }
  ASSERT_FALSE(row.empty());
  const auto bar = row.find("│");
  ASSERT_NE(bar, std::string::npos);
  const std::string cells = row.substr(bar + std::string("│").size());
  EXPECT_EQ(cells.substr(0, 3), "FFF");
  EXPECT_NE(cells.find("FC"), std::string::npos);
  EXPECT_TRUE(contains(lines, "now"));
  // A timeline of another rank is not shown as this one's.
  model_.timeline->rank = 1;
  EXPECT_TRUE(contains(frame(100, 0), "loading the timeline…"));
}

TEST_F(FrameTest, HelpListsKeysAndVerdicts) {
  state_.view = View::kHelp;
  const auto lines = frame(120, 0);
  EXPECT_TRUE(contains(lines, "KEYS"));
  EXPECT_TRUE(contains(lines, "next window (10 s, 60 s, 300 s, total)"));
  EXPECT_TRUE(contains(
      lines,
      "data-starved      the device idles while the training loop waits for the next batch"));
}

TEST(AlertsLineTest, FiringFirstThenPendingWithFormattedValues) {
  std::vector<Alert> alerts(3);
  alerts[0] = {"p",   "HostBound", "pending", "info", "beta", std::nullopt, "device_idle_ratio",
               "60s", 0.4,         0.3,       ""};
  alerts[1] = {"f",   "DataStarved", "firing", "warning", "alpha", 0, "data_stall_ratio",
               "60s", 0.61,          0.3,      ""};
  alerts[2] = {"r", "Old", "resolved", "info", "alpha", 1, "data_stall_ratio", "60s", 0.1, 0.3, ""};
  const Line line = alerts_line(alerts);
  EXPECT_EQ(
      line.text(),
      "alerts: FIRING DataStarved alpha/0 data_stall_ratio 61.0% ≥ 30.0% · pending HostBound beta "
      "device_idle_ratio 40.0% ≥ 30.0% (1 resolved in the last hour)");
  EXPECT_EQ(line.spans[1].style, Style::kBad);
  EXPECT_EQ(alerts_line({}).text(), "alerts: none");
}

}  // namespace
}  // namespace stallwatch::tui
