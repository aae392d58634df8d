// SPDX-License-Identifier: MIT
// Job view: ranks sorted, mean/max over ranks with wall > 0 (NaN-aware),
// straggler, job verdict = verdict of the mean, headline verdict window.

#include <gtest/gtest.h>

#include <cmath>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Rank `rank` waits `fetch_ms` of every 10 ms and marks a step every `step_ms`.
void send_rank(Harness& h, std::int32_t rank, std::int64_t fetch_ms, std::int64_t step_ms,
               bool app_io = true) {
  auto main = h.source(100 + rank, ProcessRole::kMain, "job", rank);
  for (int i = 0; i < 10; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    if (app_io) main.complete("loader", "fetch.iter", at, ms(fetch_ms));
    main.complete("compute", "forward", at + ms(fetch_ms), ms(10 - fetch_ms));
    for (std::int64_t m = 10 * i; step_ms > 0 && m < 10 * i + 10; ++m) {
      if (m % step_ms == 0) main.mark("step", kT0 + ms(m), m / step_ms);
    }
    h.send(main.take(at + ms(10)));
  }
}

TEST(EngineJob, MeanMaxAndVerdictOfTheMean) {
  Harness h(small_config());
  send_rank(h, 3, 8, 0);
  send_rank(h, 1, 2, 0);
  send_rank(h, 2, 5, 0, false);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  ASSERT_EQ(job->ranks.size(), 3u);
  EXPECT_EQ(job->ranks[0].rank, 1);
  EXPECT_EQ(job->ranks[2].rank, 3);
  ASSERT_EQ(job->windows.size(), 3u);
  const JobWindow& w = job->windows[0];
  EXPECT_EQ(w.window_ns, ms(10));
  EXPECT_NEAR(w.mean.data_stall_ratio, (0.8 + 0.2 + 0.0) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(w.max.data_stall_ratio, 0.8);
  // Rank 2 has no app I/O: its overlap_ratio is NaN and is left out of the mean.
  EXPECT_TRUE(std::isnan(job->ranks[1].windows[0].overlap_ratio));
  EXPECT_DOUBLE_EQ(w.mean.overlap_ratio, 0.0);
  EXPECT_NEAR(w.mean.compute_seconds, (0.002 + 0.008 + 0.005) / 3, 1e-12);
  EXPECT_EQ(w.verdict, Verdict::kDataStarved);  // mean stall 0.33 >= 0.15
  EXPECT_EQ(job->verdict, w.verdict);           // verdict window is 10 ms
  EXPECT_EQ(s->verdict_window_ns, ms(10));
  EXPECT_EQ(s->verdict_window_index, 0u);
  EXPECT_EQ(s->windows_ns, (std::vector<std::int64_t>{ms(10), ms(30), 0}));
  EXPECT_EQ(w.straggler_rank, 1);  // fetch ends count as steps; ties go to the lower rank
}

TEST(EngineJob, StragglerIsTheSlowestOfAtLeastTwoRanksWithSteps) {
  Harness h(small_config());
  send_rank(h, 0, 2, 2);
  send_rank(h, 1, 2, 5);
  send_rank(h, 2, 2, 0, false);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->windows[2].straggler_rank, 1);
  EXPECT_NEAR(job->windows[2].max.step_seconds_p50, 0.005, 1e-12);

  Harness one(small_config());
  send_rank(one, 0, 2, 2);
  send_rank(one, 1, 2, 0, false);
  auto s1 = one.tick(kT0 + ms(100));
  EXPECT_EQ(s1->find_job("job")->windows[2].straggler_rank, -1);
}

TEST(EngineJob, RanksWithoutWallAreLeftOutOfTheMean) {
  Harness h(small_config());
  send_rank(h, 0, 5, 0);
  auto late = h.source(200, ProcessRole::kMain, "job", 1);
  late.source().start_ns = kT0 + ms(100);
  h.send(late.take(kT0 + ms(100)));
  auto s = h.tick(kT0 + ms(100));
  const JobWindow& w = s->find_job("job")->windows[0];
  EXPECT_DOUBLE_EQ(find_rank(*s, "job", 1)->windows[0].wall_seconds, 0.0);
  EXPECT_DOUBLE_EQ(w.mean.data_stall_ratio, 0.5);
  EXPECT_DOUBLE_EQ(w.mean.wall_seconds, 0.010);
}

TEST(EngineJob, TotalsCanBeTheVerdictWindow) {
  EngineConfig c = small_config();
  c.verdict_window_ns = 0;
  Harness h(c);
  send_rank(h, 0, 1, 0);
  auto s = h.tick(kT0 + ms(100));
  EXPECT_EQ(s->verdict_window_index, 2u);
  const RankSnapshot* r = find_rank(*s, "job", 0);
  EXPECT_EQ(r->verdict, r->windows[2].verdict);
  EXPECT_EQ(r->verdict, Verdict::kWellOverlapped);
}

TEST(EngineJob, VerdictRulesInOrder) {
  struct Region {
    const char* cat;
    const char* name;
    std::int64_t start_us;  // within the window [10 ms, 20 ms)
    std::int64_t dur_us;
  };
  struct Case {
    const char* what;
    std::vector<Region> regions;
    Verdict want;
  };
  const std::vector<Case> cases = {
      {"nothing", {}, Verdict::kIdle},
      {"under 2% busy", {{"compute", "forward", 0, 150}}, Verdict::kIdle},
      {"waits 30% in fetch",
       {{"compute", "forward", 0, 7000}, {"loader", "fetch.iter", 7000, 3000}},
       Verdict::kDataStarved},
      {"reads 30% outside compute",
       {{"compute", "forward", 0, 7000}, {"POSIX", "read", 7000, 3000}},
       Verdict::kIoBound},
      {"computes half the time", {{"compute", "forward", 0, 5000}}, Verdict::kHostBound},
      {"reads under compute",
       {{"compute", "forward", 0, 9000}, {"POSIX", "read", 0, 9000}},
       Verdict::kWellOverlapped},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.what);
    Harness h(small_config());
    auto main = h.source(100);
    for (const auto& r : k.regions) {
      main.complete(r.cat, r.name, kT0 + ms(10) + us(r.start_us), us(r.dur_us));
    }
    h.send(main.take(kT0 + ms(20)));
    const RankSnapshot* rank = find_rank(*h.tick(kT0 + ms(20)), "job", 0);
    ASSERT_NE(rank, nullptr);
    EXPECT_EQ(rank->windows[0].verdict, k.want) << to_string(rank->windows[0].verdict);
  }
}

}  // namespace
}  // namespace stallwatch::collector::testing
