// SPDX-License-Identifier: MIT
#include "training_progress.h"

#include <gtest/gtest.h>

#include <vector>

namespace stallwatch::collector::detail {
namespace {

constexpr NameId kStep = 11;
constexpr NameId kEpoch = 12;
constexpr NameId kBatchSize = 13;
constexpr NameId kOther = 14;

std::vector<std::int64_t> pending_steps(const TrainingProgress& p) {
  std::vector<std::int64_t> out;
  p.steps().for_each_pending(1'000'000,
                             [&](const StepTracker::Step& s) { out.push_back(s.ts_ns); });
  return out;
}

TEST(TrainingProgress, StepMarksAreStepsFromTheRanksStart) {
  TrainingProgress p(kStep, kEpoch, kBatchSize);
  EXPECT_EQ(p.step(), -1);
  p.add_mark(kStep, 90, 1, 100);  // before the start: sets the step, is no step
  p.add_mark(kStep, 110, 2, 100);
  p.add_mark(kStep, 130, 3, 100);
  EXPECT_EQ(pending_steps(p), (std::vector<std::int64_t>{110, 130}));
  EXPECT_EQ(p.step(), 3);
}

TEST(TrainingProgress, TheLatestMarkByTimeSetsStepAndEpoch) {
  TrainingProgress p(kStep, kEpoch, kBatchSize);
  EXPECT_EQ(p.epoch(), -1);
  p.add_mark(kStep, 200, 20, 0);
  p.add_mark(kStep, 150, 15, 0);  // arrives later, happened earlier
  EXPECT_EQ(p.step(), 20);
  p.add_mark(kEpoch, 200, 2, 0);
  p.add_mark(kEpoch, 100, 1, 0);
  EXPECT_EQ(p.epoch(), 2);
  p.add_mark(kEpoch, 200, 3, 0);  // same time: the later arrival wins
  EXPECT_EQ(p.epoch(), 3);
  EXPECT_EQ(p.step(), 20);
}

TEST(TrainingProgress, OtherMarksAreNotSteps) {
  TrainingProgress p(kStep, kEpoch, kBatchSize);
  p.add_mark(kOther, 100, 7, 0);
  p.add_mark(kEpoch, 100, 7, 0);
  EXPECT_TRUE(pending_steps(p).empty());
  EXPECT_EQ(p.step(), -1);
}

TEST(TrainingProgress, FetchEndsAreStepsAndBatchSizesPriceThem) {
  TrainingProgress p(kStep, kEpoch, kBatchSize);
  EXPECT_TRUE(p.is_batch_size(kBatchSize));
  EXPECT_FALSE(p.is_batch_size(kOther));
  EXPECT_FALSE(p.has_batch_size());
  p.add_batch_size(50, 32.0);
  p.add_fetch_end(100);
  p.add_fetch_end(200);
  EXPECT_TRUE(p.has_batch_size());
  std::vector<double> samples;
  p.steps().for_each_pending(1000,
                             [&](const StepTracker::Step& s) { samples.push_back(s.samples); });
  EXPECT_EQ(samples, (std::vector<double>{32.0, 32.0}));
  EXPECT_GT(p.bytes(), 0u);
}

// Only a step mark ends the fetch-end fallback: an epoch-start mark sets the
// epoch and nothing else, so fetch ends before the first step mark are steps
// and that mark ends the step the last of them counted.
TEST(TrainingProgress, OnlyAStepMarkEndsTheFetchEndFallback) {
  TrainingProgress p(kStep, kEpoch, kBatchSize);
  p.add_fetch_end(50);
  p.add_mark(kEpoch, 90, 0, 0);
  p.add_fetch_end(100);
  p.add_mark(kStep, 150, 1, 0);  // ends the step the fetch at 100 counted
  p.add_fetch_end(200);          // after the first step mark: not a step
  p.add_mark(kStep, 250, 2, 0);
  EXPECT_EQ(pending_steps(p), (std::vector<std::int64_t>{50, 100, 250}));
  EXPECT_EQ(p.epoch(), 0);
}

}  // namespace
}  // namespace stallwatch::collector::detail
