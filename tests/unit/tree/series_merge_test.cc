// SPDX-License-Identifier: MIT
// A head's series of a job: a node's /series answer decoded exactly, and the
// nodes' ranks put on the head's grid beside its own, each node's clock
// mapped onto the head's, mean and max over all ranks.

#include "tree/series_merge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace stallwatch::test {
namespace {

using namespace collector;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kStep = 100'000'000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Equal, NaN equal to NaN.
void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "point " << i << ": " << got[i];
    } else {
      EXPECT_EQ(got[i], want[i]) << "point " << i;
    }
  }
}

Series series_of(std::int64_t t_end, std::size_t points,
                 std::vector<std::pair<std::int32_t, std::vector<double>>> ranks) {
  Series s;
  s.job = "train";
  s.metric = "data_stall_ratio";
  s.step_ns = kStep;
  for (std::size_t i = 0; i < points; ++i)
    s.t_ns.push_back(t_end - static_cast<std::int64_t>(points - 1 - i) * kStep);
  for (auto& [rank, values] : ranks) {
    s.ranks.push_back(rank);
    s.values.push_back(values);
  }
  return s;
}

TEST(SeriesMerge, DecodesANodesAnswerOnItsGrid) {
  // As series_json writes it: seconds, the shortest doubles, null for NaN.
  const std::string body = R"({"job":"train","metric":"data_stall_ratio","window":"2s",
    "step_seconds":0.1,"t":[1795760000.1,1795760000.2,1795760000.3],
    "ranks":[{"rank":2,"values":[0.25,null,0.1]},{"rank":3,"values":[1,0.5,0.30000000000000004]}],
    "mean":[0.625,0.5,0.2],"max":[1,0.5,0.30000000000000004],
    "failed_nodes":[{"node":"leaf-1","error":"cannot fetch the series from node 'leaf-1'"}]})";
  NodeSeries out;
  ASSERT_EQ(parse_series_json(body, out), "");
  EXPECT_EQ(out.series.job, "train");
  EXPECT_EQ(out.series.metric, "data_stall_ratio");
  EXPECT_EQ(out.series.step_ns, kStep);
  EXPECT_EQ(out.series.t_ns,
            (std::vector<std::int64_t>{1795760000 * kS + kStep, 1795760000 * kS + 2 * kStep,
                                       1795760000 * kS + 3 * kStep}));
  EXPECT_EQ(out.series.ranks, (std::vector<std::int32_t>{2, 3}));
  ASSERT_EQ(out.series.values.size(), 2u);
  expect_values(out.series.values[0], {0.25, kNaN, 0.1});
  expect_values(out.series.values[1], {1, 0.5, 0.30000000000000004});
  expect_values(out.series.max, {1, 0.5, 0.30000000000000004});
  ASSERT_EQ(out.failed_nodes.size(), 1u);
  EXPECT_EQ(out.failed_nodes[0].first, "leaf-1");
}

TEST(SeriesMerge, RefusesWhatIsNotASeries) {
  NodeSeries out;
  EXPECT_NE(parse_series_json("<html>", out).find("not JSON"), std::string::npos);
  EXPECT_EQ(
      parse_series_json(R"({"job":"j","metric":"m","step_seconds":1,"t":[1],"ranks":[]})", out),
      "no arrays 'mean' and 'max'");
  EXPECT_EQ(parse_series_json(R"({"job":"j","metric":"m","step_seconds":1,"t":[1,2],
      "ranks":[{"rank":0,"values":[1]}],"mean":[],"max":[]})",
                              out),
            "rank 0 without one value per time");
  EXPECT_EQ(parse_series_json(R"({"job":"j","metric":"m","step_seconds":0,"t":[],"ranks":[],
      "mean":[],"max":[]})",
                              out),
            "no positive 'step_seconds'");
  EXPECT_EQ(parse_series_json(R"({"job":"j","metric":"m","step_seconds":1,"t":[],
      "ranks":[{"rank":-1,"values":[]}],"mean":[],"max":[]})",
                              out),
            "a rank without a valid 'rank'");
}

TEST(SeriesMerge, RoundsOffsetsToTheNearestStep) {
  EXPECT_EQ(round_to_step(0, kStep), 0);
  EXPECT_EQ(round_to_step(49'999'999, kStep), 0);
  EXPECT_EQ(round_to_step(50'000'000, kStep), kStep);
  EXPECT_EQ(round_to_step(-50'000'000, kStep), -kStep);
  EXPECT_EQ(round_to_step(-149'999'999, kStep), -kStep);
  EXPECT_EQ(round_to_step(90 * kS + 3, kStep), 90 * kS);
}

TEST(SeriesMerge, KeepsOnlyTheGivenRanks) {
  Series s = series_of(10 * kS, 2, {{0, {1, 2}}, {1, {3, 4}}, {5, {5, 6}}});
  const std::vector<std::int32_t> keep = {1, 5, 7};
  keep_ranks(s, keep);
  EXPECT_EQ(s.ranks, (std::vector<std::int32_t>{1, 5}));
  ASSERT_EQ(s.values.size(), 2u);
  expect_values(s.values[0], {3, 4});
  expect_values(s.values[1], {5, 6});
}

TEST(SeriesMerge, KeepingEveryRankKeepsTheirValues) {
  Series s = series_of(10 * kS, 2, {{0, {1, 2}}, {1, {3, 4}}});
  const std::vector<std::int32_t> keep = {0, 1};
  keep_ranks(s, keep);
  EXPECT_EQ(s.ranks, (std::vector<std::int32_t>{0, 1}));
  ASSERT_EQ(s.values.size(), 2u);
  expect_values(s.values[0], {1, 2});
  expect_values(s.values[1], {3, 4});
}

// The head's rank 1 ends at 10 s; node a (clock as the head's) has ranks 0
// and 3 and ends a step later; node b's clock is 90 s ahead and its grid
// ends at 100.1 s (10.1 s on the head's clock), its rank 2 two steps short.
TEST(SeriesMerge, PutsEveryRankOnTheHeadsGridWithMeanAndMaxOverAll) {
  const Series local = series_of(10 * kS, 4, {{1, {0.1, 0.2, 0.3, 0.4}}});
  const Series a = series_of(10 * kS + kStep, 4, {{0, {1, 2, 3, 4}}, {3, {5, 6, 7, kNaN}}});
  const Series b = series_of(100 * kS + kStep, 3, {{2, {7, 8, 9}}});
  const std::vector<SeriesPart> parts = {
      {&local, 0}, {&a, 0}, {&b, 90 * kS + 20'000'000}};  // b's offset rounds to 90 s
  const auto merged = merge_series(parts, kStep, 4);
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->job, "train");
  EXPECT_EQ(merged->step_ns, kStep);
  // The latest end: 10.1 s.
  EXPECT_EQ(merged->t_ns, (std::vector<std::int64_t>{9 * kS + 8 * kStep, 9 * kS + 9 * kStep,
                                                     10 * kS, 10 * kS + kStep}));
  EXPECT_EQ(merged->ranks, (std::vector<std::int32_t>{0, 1, 2, 3}));
  ASSERT_EQ(merged->values.size(), 4u);
  expect_values(merged->values[0], {1, 2, 3, 4});
  expect_values(merged->values[1], {0.2, 0.3, 0.4, kNaN});  // the head's grid moved a step
  expect_values(merged->values[2], {kNaN, 7, 8, 9});        // b did not cover 9.8 s
  expect_values(merged->values[3], {5, 6, 7, kNaN});
  expect_values(merged->mean,
                {(1 + 0.2 + 5) / 3, (2 + 0.3 + 7 + 6) / 4, (3 + 0.4 + 8 + 7) / 4, (4 + 9) / 2.0});
  expect_values(merged->max, {5, 7, 8, 9});
}

TEST(SeriesMerge, AHeadsOwnRankWinsAndNothingToMergeIsNone) {
  const Series local = series_of(10 * kS, 2, {{0, {0.5, 0.5}}});
  const Series node = series_of(10 * kS, 2, {{0, {9, 9}}, {1, {kNaN, kNaN}}});
  const std::vector<SeriesPart> parts = {{&local, 0}, {&node, 0}};
  const auto merged = merge_series(parts, kStep, 2);
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->ranks, (std::vector<std::int32_t>{0, 1}));
  expect_values(merged->values[0], {0.5, 0.5});
  expect_values(merged->mean, {0.5, 0.5});
  expect_values(merged->max, {0.5, 0.5});
  EXPECT_FALSE(merge_series({}, kStep, 2));
  const Series empty;
  const std::vector<SeriesPart> nothing = {{&empty, 0}};
  EXPECT_FALSE(merge_series(nothing, kStep, 2));
}

}  // namespace
}  // namespace stallwatch::test
