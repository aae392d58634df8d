// SPDX-License-Identifier: MIT
// History for charts: a series point at t is the metric over [t - W, t).

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

TEST(EngineSeries, PointsEqualTheWindowsSeenAtEachTick) {
  Harness h(small_config());
  auto main = h.source(100);
  auto other = h.source(200, ProcessRole::kMain, "job", 1);
  std::map<std::int64_t, double> seen_stall;
  std::map<std::int64_t, double> seen_total_compute;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t at = kT0 + ms(5 * i);
    const std::int64_t fetch = us(500) * (i % 7 + 1);
    main.complete("loader", "fetch.iter", at, fetch)
        .complete("compute", "forward", at + fetch, ms(5) - fetch);
    h.send(main.take(at + ms(5)));
    other.complete("compute", "forward", at, ms(4));
    h.send(other.take(at + ms(5)));
    const RankSnapshot* r = find_rank(*h.tick(at + ms(5)), "job", 0);
    seen_stall[window(*r, ms(10)).end_ns] = window(*r, ms(10)).data_stall_ratio;
    seen_total_compute[window(*r, 0).end_ns] = window(*r, 0).compute_seconds;
  }
  auto s = h.engine.series("job", "data_stall_ratio", ms(10), ms(150));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->step_ns, ms(1));
  ASSERT_EQ(s->t_ns.size(), 150u);
  EXPECT_EQ(s->t_ns.back(), kT0 + ms(200));
  ASSERT_EQ(s->ranks, (std::vector<std::int32_t>{0, 1}));
  std::size_t checked = 0;
  for (std::size_t p = 0; p < s->t_ns.size(); ++p) {
    auto it = seen_stall.find(s->t_ns[p]);
    if (it == seen_stall.end()) continue;
    EXPECT_DOUBLE_EQ(s->values[0][p], it->second) << "t = " << s->t_ns[p] - kT0;
    EXPECT_DOUBLE_EQ(s->values[1][p], 0.0);
    EXPECT_DOUBLE_EQ(s->mean[p], it->second / 2);
    EXPECT_DOUBLE_EQ(s->max[p], it->second);
    ++checked;
  }
  EXPECT_GE(checked, 29u);

  auto totals = h.engine.series("job", "compute_seconds", 0, ms(150));
  ASSERT_TRUE(totals.has_value());
  for (std::size_t p = 0; p < totals->t_ns.size(); ++p) {
    auto it = seen_total_compute.find(totals->t_ns[p]);
    if (it != seen_total_compute.end()) {
      EXPECT_DOUBLE_EQ(totals->values[0][p], it->second);
    }
  }
}

TEST(EngineSeries, StepPercentilesReadAsTheMeanStepTime) {
  Harness h(small_config());
  auto main = h.source(100);
  std::int64_t at = 0;
  for (int i = 0; i < 20; ++i) {
    at += i % 2 == 0 ? 1 : 3;  // steps 1 ms and 3 ms apart
    main.mark("step", kT0 + ms(at), i);
    h.send(main.take(kT0 + ms(at) + 1));
  }
  auto s = h.engine.series("job", "step_seconds_p50", ms(30), ms(10));
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->values[0].back(), 0.002, 1e-9);
}

TEST(EngineSeries, OutsideTheLifetimeIsNaN) {
  Harness h(small_config());
  auto main = h.source(100);
  main.source().start_ns = kT0 + ms(20);
  main.complete("compute", "forward", kT0 + ms(20), ms(5));
  h.send(main.take(kT0 + ms(30)));
  auto s = h.engine.series("job", "device_idle_ratio", ms(10), ms(30));
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(std::isnan(s->values[0][0]));  // t = 1 ms: before the start
  EXPECT_TRUE(std::isnan(s->mean[0]));
  EXPECT_DOUBLE_EQ(s->values[0].back(), 0.5);  // [20, 30): compute 5 ms
}

TEST(EngineSeries, UnknownJobMetricOrWindowIsNullopt) {
  Harness h(small_config());
  auto main = h.source(100);
  h.send(main.take(kT0 + ms(10)));
  EXPECT_FALSE(h.engine.series("nope", "data_stall_ratio", ms(10), ms(10)).has_value());
  EXPECT_FALSE(h.engine.series("job", "verdict", ms(10), ms(10)).has_value());
  EXPECT_FALSE(h.engine.series("job", "data_stall_ratio", ms(20), ms(10)).has_value());
  EXPECT_TRUE(h.engine.series("job", "data_stall_ratio", ms(30), ms(10)).has_value());
  const auto& names = Engine::series_metric_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "samples_per_second"), names.end());
  for (auto name : names) {
    EXPECT_TRUE(h.engine.series("job", name, ms(10), ms(5)).has_value()) << name;
  }
}

}  // namespace
}  // namespace stallwatch::collector::testing
