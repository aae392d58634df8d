// SPDX-License-Identifier: MIT
#include "step_tracker.h"

#include <gtest/gtest.h>

#include <vector>

namespace stallwatch::collector::detail {
namespace {

std::vector<StepTracker::Step> pending(const StepTracker& t, std::int64_t until) {
  std::vector<StepTracker::Step> out;
  t.for_each_pending(until, [&](const StepTracker::Step& s) { out.push_back(s); });
  return out;
}

TEST(StepTracker, MarksInTimeOrderWithDurations) {
  StepTracker t;
  t.add_mark(30);
  t.add_mark(10);
  t.add_mark(15);
  auto s = pending(t, 100);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].ts_ns, 10);
  EXPECT_FALSE(s[0].has_duration);
  EXPECT_EQ(s[1].duration_ns, 5);
  EXPECT_EQ(s[2].duration_ns, 15);
  EXPECT_EQ(pending(t, 15).size(), 1u);
}

TEST(StepTracker, FallbackStepsCountOnlyBeforeTheFirstStepMark) {
  StepTracker t;
  t.add_fetch_end(5);
  t.add_fetch_end(10);
  t.add_mark(14);  // ends the step the fetch ending at 10 counted
  t.add_fetch_end(20);
  t.add_mark(24);
  auto s = pending(t, 100);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].ts_ns, 5);
  EXPECT_EQ(s[1].ts_ns, 10);
  EXPECT_EQ(s[1].duration_ns, 5);
  EXPECT_EQ(s[2].ts_ns, 24);
  EXPECT_EQ(s[2].duration_ns, 10);  // from the mark at 14
  EXPECT_EQ(t.pending(), 4u);       // the fetch at 20 came after the first step mark
}

// A loop with no epoch marker: the fetch that brought the first batch is a
// fallback step, and the first step mark ends that same step.
TEST(StepTracker, TheFirstStepMarkAfterFallbackStepsEndsTheStepTheyCounted) {
  StepTracker t;
  t.add_fetch_end(2);
  t.add_fetch_end(5);
  t.add_mark(12);
  t.add_fetch_end(15);
  t.add_mark(20);
  t.add_mark(30);
  auto s = pending(t, 100);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[1].ts_ns, 5);
  EXPECT_EQ(s[2].ts_ns, 20);
  EXPECT_EQ(s[2].duration_ns, 8);  // from the mark that ended the fetched step
  EXPECT_EQ(s[3].duration_ns, 10);
}

TEST(StepTracker, TheFirstStepMarkIsNotAStepWhenItsFetchWasFinalizedAlready) {
  StepTracker t;
  t.add_fetch_end(5);
  std::vector<StepTracker::Step> done;
  t.finalize(10, [&](const StepTracker::Step& s) { done.push_back(s); });
  ASSERT_EQ(done.size(), 1u);
  t.add_mark(12);
  t.add_mark(20);
  t.finalize(15, [&](const StepTracker::Step& s) { done.push_back(s); });
  EXPECT_EQ(done.size(), 1u);
  t.finalize(100, [&](const StepTracker::Step& s) { done.push_back(s); });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].ts_ns, 20);
  EXPECT_EQ(done[1].duration_ns, 8);
  t.add_mark(30);
  EXPECT_EQ(pending(t, 200).size(), 1u);  // later marks are steps
}

TEST(StepTracker, BatchSizeInForceAtEachStep) {
  StepTracker t;
  EXPECT_FALSE(t.has_batch_size());
  t.add_mark(10);
  t.add_batch_size(15, 32.0);
  t.add_mark(20);
  t.add_batch_size(20, 64.0);
  t.add_mark(30);
  EXPECT_TRUE(t.has_batch_size());
  auto s = pending(t, 100);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].samples, 0.0);
  EXPECT_EQ(s[1].samples, 64.0);  // a counter at the step's own time is in force
  EXPECT_EQ(s[2].samples, 64.0);
}

TEST(StepTracker, FinalizeHandsOverAndRemembersTheLastStepAndBatchSize) {
  StepTracker t;
  t.add_batch_size(1, 8.0);
  t.add_mark(10);
  t.add_mark(20);
  t.add_mark(40);
  std::vector<StepTracker::Step> done;
  t.finalize(25, [&](const StepTracker::Step& s) { done.push_back(s); });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(t.pending(), 1u);
  auto rest = pending(t, 100);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_TRUE(rest[0].has_duration);
  EXPECT_EQ(rest[0].duration_ns, 20);
  EXPECT_EQ(rest[0].samples, 8.0);
  EXPECT_GT(t.bytes(), 0u);
}

}  // namespace
}  // namespace stallwatch::collector::detail
