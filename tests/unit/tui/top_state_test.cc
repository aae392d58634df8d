// SPDX-License-Identifier: MIT
#include "top_state.h"

#include <gtest/gtest.h>

#include "tui_fixtures.h"

namespace stallwatch::tui {
namespace {

class TopStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = test::two_job_model();
    const KeyEffect e = reconcile(state_, model_);
    ASSERT_TRUE(e.job_changed);
  }
  KeyEffect press(Key key) { return apply_key(state_, key, model_); }

  TopModel model_;
  TopState state_;
};

TEST_F(TopStateTest, ReconcilePicksTheVerdictWindowTheFirstActiveJobAndItsFirstRank) {
  EXPECT_EQ(state_.window, "60s");
  EXPECT_EQ(state_.job, "alpha");
  EXPECT_EQ(state_.rank, 0);
  EXPECT_FALSE(reconcile(state_, model_).redraw);  // already valid: nothing changes
}

TEST_F(TopStateTest, JAndKMoveThroughTheRanksInDisplayOrder) {
  EXPECT_TRUE(press(Key::kDown).redraw);
  EXPECT_EQ(state_.rank, 1);
  press(Key::kDown);
  EXPECT_EQ(state_.rank, 2);
  EXPECT_FALSE(press(Key::kDown).redraw);  // stays on the last rank
  EXPECT_EQ(state_.rank, 2);
  press(Key::kUp);
  EXPECT_EQ(state_.rank, 1);
  press(Key::kHome);
  EXPECT_EQ(state_.rank, 0);
  press(Key::kEnd);
  EXPECT_EQ(state_.rank, 2);
}

TEST_F(TopStateTest, SortChangesTheOrderButKeepsTheSelectedRank) {
  press(Key::kDown);  // rank 1
  press(Key::kSort);  // data stall: 0 (0.6), 1 (0.04), 2 (0.02)
  EXPECT_EQ(state_.sort, SortKey::kDataStall);
  EXPECT_EQ(state_.rank, 1);
  press(Key::kSort);  // device idle: 0 (0.7), 2 (0.5), 1 (0.05)
  EXPECT_EQ(state_.rank, 1);
  press(Key::kUp);
  EXPECT_EQ(state_.rank, 2);
  const auto ranks = visible_ranks(state_, model_);
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[0]->rank, 0);
  EXPECT_EQ(ranks[1]->rank, 2);
}

TEST_F(TopStateTest, EnterOpensTheDetailAndEscapeComesBack) {
  press(Key::kDown);
  const KeyEffect open = press(Key::kEnter);
  EXPECT_EQ(state_.view, View::kDetail);
  EXPECT_TRUE(open.timeline_changed);
  // In the detail view j/k change the rank and ask for its timeline.
  EXPECT_TRUE(press(Key::kDown).timeline_changed);
  EXPECT_EQ(state_.rank, 2);
  EXPECT_TRUE(press(Key::kZoomOut).timeline_changed);
  EXPECT_EQ(state_.timeline_seconds, 30);
  press(Key::kZoomIn);
  press(Key::kZoomIn);
  EXPECT_EQ(state_.timeline_seconds, 5);
  EXPECT_FALSE(press(Key::kZoomIn).redraw);
  press(Key::kBack);
  EXPECT_EQ(state_.view, View::kMain);
  EXPECT_FALSE(press(Key::kZoomOut).redraw);  // zoom means nothing in the main view
  EXPECT_FALSE(press(Key::kBack).redraw);
}

TEST_F(TopStateTest, WindowKeyCyclesThroughTheCollectorsWindows) {
  std::vector<std::string> seen;
  for (int i = 0; i < 4; ++i) {
    press(Key::kWindow);
    seen.push_back(state_.window);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"300s", "total", "10s", "60s"}));
}

TEST_F(TopStateTest, HelpCoversTheViewAndReturnsToIt) {
  press(Key::kEnter);
  press(Key::kHelp);
  EXPECT_EQ(state_.view, View::kHelp);
  EXPECT_FALSE(press(Key::kDown).redraw);  // keys other than back/help/quit do nothing in help
  EXPECT_EQ(state_.rank, 0);
  press(Key::kHelp);
  EXPECT_EQ(state_.view, View::kDetail);
  press(Key::kHelp);
  press(Key::kBack);
  EXPECT_EQ(state_.view, View::kDetail);
  EXPECT_TRUE(press(Key::kQuit).quit);
}

TEST_F(TopStateTest, LeftAndRightChangeTheJob) {
  press(Key::kEnter);
  const KeyEffect e = press(Key::kRight);
  EXPECT_TRUE(e.job_changed);
  EXPECT_EQ(state_.job, "beta");
  EXPECT_EQ(state_.view, View::kMain);  // the detail belonged to the other job
  EXPECT_FALSE(state_.rank.has_value());
  EXPECT_FALSE(press(Key::kRight).job_changed);
  EXPECT_TRUE(press(Key::kLeft).job_changed);
  EXPECT_EQ(state_.job, "alpha");
}

TEST_F(TopStateTest, AGoneJobIsReplacedUnlessPinned) {
  model_.jobs.erase(model_.jobs.begin());
  model_.detail.reset();
  EXPECT_TRUE(reconcile(state_, model_).job_changed);
  EXPECT_EQ(state_.job, "beta");  // the only one left (finished)

  TopState pinned;
  pinned.job = "gamma";
  pinned.job_pinned = true;
  EXPECT_FALSE(reconcile(pinned, model_).job_changed);
  EXPECT_EQ(pinned.job, "gamma");
}

TEST_F(TopStateTest, ARankThatDisappearsMovesTheCursorToTheFirstRow) {
  press(Key::kEnd);
  EXPECT_EQ(state_.rank, 2);
  model_.detail->ranks.pop_back();
  const KeyEffect e = reconcile(state_, model_);
  EXPECT_TRUE(e.redraw);
  EXPECT_EQ(state_.rank, 0);
}

}  // namespace
}  // namespace stallwatch::tui
