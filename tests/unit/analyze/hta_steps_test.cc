// SPDX-License-Identifier: MIT
#include "hta_steps.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "analyze_run.h"
#include "hta_test_traces.h"

namespace stallwatch::collector {
namespace {

const std::string kResNet = "kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

// The ResNet trace holds ProfilerStep#101..#105; its fractional timestamps are
// rounded as HTA rounds them (start up, end down), giving these step times.
TEST(HtaSteps, CountsEveryProfilerStepOfTheRank) {
  const HtaBreakdown h = hta_ns_resolution();
  ASSERT_EQ(h.steps.size(), 1u);
  const HtaRankSteps& s = h.steps[0];
  EXPECT_EQ(s.steps, 5u);
  EXPECT_EQ(s.total_us, 35115 + 72076 + 95697 + 95550 + 95699);
  EXPECT_DOUBLE_EQ(s.mean_us, 78827.4);
  EXPECT_DOUBLE_EQ(s.p50_us, 95550);
  EXPECT_DOUBLE_EQ(s.max_us, 95699);
  EXPECT_FALSE(hta_rank_qps(s, 0).has_value());
  EXPECT_NEAR(*hta_rank_qps(s, 32), 32 * 1e6 / 78827.4, 1e-9);
}

TEST(HtaSteps, JobQpsSumsTheRanks) {
  const HtaBreakdown h = hta_two_rank();
  ASSERT_EQ(h.steps.size(), 2u);
  EXPECT_EQ(h.steps[0].steps, 2u);
  EXPECT_EQ(h.steps[1].steps, 2u);
  EXPECT_DOUBLE_EQ(h.steps[0].mean_us, 615120);
  EXPECT_DOUBLE_EQ(h.steps[1].mean_us, 619271.5);
  EXPECT_NEAR(*hta_job_qps(h.steps, 64), 64e6 / 615120 + 64e6 / 619271.5, 1e-9);
  EXPECT_FALSE(hta_job_qps(h.steps, 0).has_value());
}

TEST(HtaSteps, BatchSizeAddsQpsToTheTextAndJsonReports) {
  const std::string trace = testing::test_data(kResNet);
  const CommandRun json_run = analyze({trace, "--json", "--no-engine", "--batch-size", "32"});
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto doc = nlohmann::json::parse(json_run.out);
  const auto& steps = doc["hta"]["steps"];
  EXPECT_EQ(steps["batch_size"], 32);
  ASSERT_EQ(steps["ranks"].size(), 1u);
  EXPECT_EQ(steps["ranks"][0]["steps"], 5);
  EXPECT_NEAR(steps["ranks"][0]["qps"].get<double>(), 405.950, 1e-3);
  EXPECT_NEAR(steps["job_qps"].get<double>(), 405.950, 1e-3);

  const CommandRun text = analyze({trace, "--no-engine", "--batch-size", "32"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("QPS = 32 samples per rank and step"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("406.0"), std::string::npos) << text.out;

  const CommandRun none = analyze({trace, "--json", "--no-engine"});
  ASSERT_EQ(none.code, 0) << none.err;
  const auto plain = nlohmann::json::parse(none.out)["hta"]["steps"];
  EXPECT_TRUE(plain["batch_size"].is_null());
  EXPECT_TRUE(plain["ranks"][0]["qps"].is_null());
  EXPECT_EQ(analyze({trace, "--batch-size", "0"}).code, 2);
}

}  // namespace
}  // namespace stallwatch::collector
