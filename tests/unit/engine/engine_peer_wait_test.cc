// SPDX-License-Identifier: MIT
// Waiting for peers: peer_wait_seconds per rank and window against a
// brute-force oracle (random jobs, ranks on hosts whose clocks disagree), the
// waiting-for-peers verdict, and who holds the job back.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/job_summary.h"
#include "peer_wait_oracle.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Rank `rank` fetches for `fetch_ms` at the start of each 10 ms step, then
// computes until it reaches the step's all-reduce, which ends for every rank
// when the slowest arrives (at 10 ms - 1 ms + the slowest's extra fetch).
void send_step_rank(Harness& h, std::int32_t rank, std::int64_t fetch_ms, std::int64_t slowest_ms,
                    int steps = 10) {
  auto main = h.source(100 + rank, ProcessRole::kMain, "job", rank);
  for (int i = 0; i < steps; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    const std::int64_t arrive = at + ms(2 + fetch_ms);
    const std::int64_t done = at + ms(2 + slowest_ms + 1);
    main.complete("dataloader", "fetch.iter", at, ms(fetch_ms));
    main.complete("compute", "forward", at + ms(fetch_ms), ms(2));
    main.complete("comm", "all_reduce", arrive, done - arrive, main.main_tid() + 1);
    main.complete("compute", "step", done, at + ms(10) - done);
    main.mark("step", at + ms(10) - us(1), i + 1);
    h.send(main.take(at + ms(10)));
  }
}

TEST(EnginePeerWait, OthersWaitForTheSlowLoaderWhichIsNamed) {
  Harness h(small_config());
  send_step_rank(h, 0, 1, 6);
  send_step_rank(h, 1, 1, 6);
  send_step_rank(h, 2, 6, 6);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  // The 10 ms window holds one whole step: ranks 0 and 1 wait 5 ms in it.
  for (int r : {0, 1}) {
    const WindowMetrics& w = window(job->ranks[r], ms(10));
    EXPECT_NEAR(w.peer_wait_seconds, 0.005, 1e-9) << r;
    EXPECT_EQ(w.verdict, Verdict::kWaitingForPeers) << r;
    EXPECT_EQ(job->ranks[r].verdict, Verdict::kWaitingForPeers) << r;
  }
  const WindowMetrics& slow = window(job->ranks[2], ms(10));
  EXPECT_EQ(slow.peer_wait_seconds, 0.0);
  EXPECT_EQ(slow.verdict, Verdict::kDataStarved);
  // No peer wait for the totals: longer than the timeline kept.
  EXPECT_TRUE(std::isnan(window(job->ranks[0], 0).peer_wait_seconds));

  const JobWindow& jw = job->windows[0];
  ASSERT_EQ(jw.held_back.ranks, std::vector<std::int32_t>{2});
  EXPECT_EQ(jw.held_back.verdicts, std::vector<Verdict>{Verdict::kDataStarved});
  EXPECT_EQ(jw.held_back.other_ranks, 2);
  EXPECT_NEAR(jw.held_back.cost_ratio, 0.5, 1e-9);
  EXPECT_NEAR(jw.mean.peer_wait_seconds, 0.010 / 3, 1e-9);
  EXPECT_NEAR(jw.max.peer_wait_seconds, 0.005, 1e-9);
}

// The timeline of a waiting rank shows, per step, the part of its
// all-reduce before the slow rank arrived, naming that rank; the slow rank
// itself waited for nobody.
TEST(EnginePeerWait, TheTimelineShowsEachWaitAndWhomItWaitedFor) {
  Harness h(small_config());
  send_step_rank(h, 0, 1, 6);
  send_step_rank(h, 1, 1, 6);
  send_step_rank(h, 2, 6, 6);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  const auto tl = h.engine.timeline("job", 0, 60);
  ASSERT_TRUE(tl.has_value());
  const std::vector<PeerWaitSpan> waits = job_peer_waits(*job, 0, tl->from_ns, tl->to_ns);
  ASSERT_EQ(waits.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    const PeerWaitSpan& w = waits[static_cast<std::size_t>(i)];
    EXPECT_EQ(w.start_ns, kT0 + ms(10 * i + 3)) << i;  // arrives after 1 ms fetch + 2 ms forward
    EXPECT_EQ(w.end_ns, kT0 + ms(10 * i + 8)) << i;    // rank 2 arrives after 6 + 2 ms
    EXPECT_EQ(w.waiting_for, 2) << i;
  }
  EXPECT_TRUE(job_peer_waits(*job, 2, tl->from_ns, tl->to_ns).empty());
  // Only those that reach into the span asked for.
  EXPECT_EQ(job_peer_waits(*job, 0, kT0 + ms(45), kT0 + ms(62)).size(), 2u);
}

TEST(EnginePeerWait, ABalancedJobNamesNobody) {
  Harness h(small_config());
  // Each rank arrives 0.5 ms apart at most: 5 % of a 10 ms step, under the
  // default cost_ratio of 10 %.
  auto send = [&](std::int32_t rank, std::int64_t late_us) {
    auto main = h.source(100 + rank, ProcessRole::kMain, "job", rank);
    for (int i = 0; i < 10; ++i) {
      const std::int64_t at = kT0 + ms(10 * i);
      const std::int64_t late = (i + rank) % 3 == 0 ? late_us : 0;
      main.complete("dataloader", "fetch.iter", at, ms(1) + us(late));
      main.complete("compute", "forward", at + ms(1) + us(late), ms(2));
      main.complete("comm", "all_reduce", at + ms(3) + us(late), ms(4) - us(late));
      main.complete("compute", "step", at + ms(7), ms(3));
      main.mark("step", at + ms(10) - us(1), i + 1);
      h.send(main.take(at + ms(10)));
    }
  };
  send(0, 500);
  send(1, 500);
  send(2, 500);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  for (const JobWindow& jw : job->windows)
    EXPECT_TRUE(jw.held_back.ranks.empty());
  for (const RankSnapshot& r : job->ranks)
    EXPECT_NE(r.verdict, Verdict::kWaitingForPeers);
}

TEST(EnginePeerWait, ThresholdsAreConfigurable) {
  EngineConfig config = small_config();
  config.straggler.cost_ratio = 0.6;  // the slow rank costs the others 50 %
  Harness h(config);
  send_step_rank(h, 0, 1, 6);
  send_step_rank(h, 1, 1, 6);
  send_step_rank(h, 2, 6, 6);
  auto s = h.tick(kT0 + ms(100));
  EXPECT_TRUE(s->find_job("job")->windows[0].held_back.ranks.empty());
}

TEST(EnginePeerWait, AJobOfOneRankWaitsForNobody) {
  Harness h(small_config());
  send_step_rank(h, 0, 1, 6);
  auto s = h.tick(kT0 + ms(100));
  const JobSnapshot* job = s->find_job("job");
  EXPECT_EQ(window(job->ranks[0], ms(10)).peer_wait_seconds, 0.0);
  EXPECT_TRUE(job->windows[0].held_back.ranks.empty());
}

// Random jobs: 2-4 ranks, each on its own host with its own clock offset,
// 2-5 steps of 1-3 collectives each (a collective now and then missing on a
// rank), calls that end before or after the latest arrival.
struct RandomJob {
  std::vector<OracleRank> ranks;
};

RandomJob random_job(std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  RandomJob job;
  const auto n = static_cast<std::size_t>(pick(2, 4));
  job.ranks.resize(n);
  for (auto& r : job.ranks)
    r.clock_offset_ns = us(pick(-3000, 3000));
  const int steps = static_cast<int>(pick(2, 5));
  std::int64_t t = us(pick(0, 500));  // collector clock, from kT0
  for (int s = 0; s < steps; ++s) {
    const int calls = static_cast<int>(pick(1, 3));
    for (int c = 0; c < calls; ++c) {
      t += us(pick(50, 400));
      std::int64_t latest = 0;
      std::vector<std::int64_t> starts(n);
      for (std::size_t i = 0; i < n; ++i) {
        starts[i] = t + us(pick(0, 800));
        latest = std::max(latest, starts[i]);
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (pick(0, 19) == 0) continue;  // missing on this rank
        const std::int64_t end =
            pick(0, 3) == 0 ? starts[i] + us(pick(1, 400)) : latest + us(pick(0, 600));
        const std::int64_t off = job.ranks[i].clock_offset_ns;
        job.ranks[i].calls.push_back({kT0 + starts[i] + off, kT0 + end + off});
      }
      t = latest + us(pick(0, 300));
    }
    t += us(pick(100, 900));
    for (auto& r : job.ranks)
      r.steps.push_back({kT0 + t + us(pick(0, 50)) + r.clock_offset_ns, s + 1});
    t += us(100);
  }
  return job;
}

TEST(EnginePeerWait, EqualsTheOracleOnRandomJobs) {
  std::size_t compared = 0;
  std::size_t waited = 0;
  std::size_t named_windows = 0;
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    const RandomJob job = random_job(rng);
    EngineConfig config = small_config();
    config.straggler.blame_share = 0.3;
    config.straggler.cost_ratio = 0.02;  // short random jobs: most windows name someone
    Harness h(config);
    const std::int64_t end = kT0 + ms(30);  // collector clock: after every event
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
      const OracleRank& r = job.ranks[i];
      BatchBuilder b(h.names, "job", static_cast<std::int32_t>(i), 100 + static_cast<int>(i),
                     ProcessRole::kMain, "host-" + std::to_string(i));
      // The rank's own lifetime: from the job's start to the end, on its clock.
      b.mark("begin", kT0 + r.clock_offset_ns - ms(5), 0);
      for (const auto& c : r.calls)
        b.complete("comm", "all_reduce", c.start_ns, c.end_ns - c.start_ns);
      for (const auto& st : r.steps)
        b.mark("step", st.ts_ns, st.value);
      const std::int64_t sent = end + r.clock_offset_ns;
      h.engine.ingest(b.take(sent), sent - r.clock_offset_ns);
    }
    auto s = h.tick(end);
    const JobSnapshot* snap = s->find_job("job");
    ASSERT_NE(snap, nullptr);
    const PeerWaitOracle oracle(job.ranks, kT0 - ms(20), ms(80));
    for (std::size_t i = 0; i < snap->ranks.size(); ++i) {
      const RankSnapshot& r = snap->ranks[i];
      ASSERT_EQ(r.clock_offset_ns, job.ranks[i].clock_offset_ns) << "seed " << seed;
      for (const WindowMetrics& w : r.windows) {
        if (w.window_ns == 0) continue;
        const double want = oracle.peer_wait_seconds(i, w.start_ns, w.end_ns);
        ASSERT_NEAR(w.peer_wait_seconds, want, 1e-9)
            << "seed " << seed << " rank " << i << " window " << w.window_ns;
        ++compared;
        waited += want > 0 ? 1 : 0;
      }
    }
    // Held back: exactly the ranks the oracle blames for at least the share,
    // when the others wait at least cost_ratio of their wall on average.
    for (std::size_t wi = 0; wi < snap->windows.size(); ++wi) {
      const JobWindow& jw = snap->windows[wi];
      if (jw.window_ns == 0) continue;
      std::int64_t total = 0;
      std::vector<std::int64_t> blame(snap->ranks.size());
      for (std::size_t i = 0; i < snap->ranks.size(); ++i) {
        const WindowMetrics& w = snap->ranks[i].windows[wi];
        blame[i] = oracle.blame_ns(i, w.start_ns, w.end_ns);
        total += blame[i];
      }
      std::vector<std::int32_t> named;
      for (std::size_t i = 0; i < blame.size() && total > 0; ++i) {
        if (static_cast<double>(blame[i]) / static_cast<double>(total) >= 0.3) {
          named.push_back(static_cast<std::int32_t>(i));
        }
      }
      double cost = 0;
      int others = 0;
      for (std::size_t i = 0; i < snap->ranks.size(); ++i) {
        if (std::find(named.begin(), named.end(), static_cast<std::int32_t>(i)) != named.end())
          continue;
        const WindowMetrics& w = snap->ranks[i].windows[wi];
        if (!(w.wall_seconds > 0)) continue;
        cost += w.peer_wait_seconds / w.wall_seconds;
        ++others;
      }
      if (others == 0 || cost / others < config.straggler.cost_ratio) named.clear();
      std::vector<std::int32_t> got = jw.held_back.ranks;
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, named) << "seed " << seed << " window " << jw.window_ns;
      named_windows += named.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(waited, compared / 4);  // the scenarios do make ranks wait
  EXPECT_GT(named_windows, 10u);    // and name ranks that hold the job back
}

}  // namespace
}  // namespace stallwatch::collector::testing
