// SPDX-License-Identifier: MIT
// Rank states, forgetting, limits, counters and bounded memory.

#include <gtest/gtest.h>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

TEST(EngineState, ActiveThenSilentThenForgotten) {
  Harness h(small_config());
  auto main = h.source(100);
  const std::int64_t seen = kT0 + ms(10);
  h.engine.ingest(main.take(kT0 + ms(10)), seen);
  auto s = h.tick(seen + sec(9));
  EXPECT_EQ(find_rank(*s, "job", 0)->state, RankState::kActive);
  EXPECT_EQ(s->find_job("job")->state, RankState::kActive);
  s = h.tick(seen + sec(10));
  EXPECT_EQ(find_rank(*s, "job", 0)->state, RankState::kSilent);
  EXPECT_EQ(s->find_job("job")->state, RankState::kSilent);
  s = h.tick(seen + sec(59));
  EXPECT_NE(s->find_job("job"), nullptr);
  s = h.tick(seen + sec(60));
  EXPECT_EQ(s->find_job("job"), nullptr);
  EXPECT_EQ(s->stats.ranks, 0u);
}

TEST(EngineState, FinishedJobsAreForgottenAfterForgetAfterAndCounted) {
  Harness h(small_config());
  const std::uint64_t idle_memory = h.tick(kT0)->stats.approx_memory_bytes;
  // Job "a": both ranks finish at 1 s. Job "b": rank 0 finishes at 1 s,
  // rank 1 goes on.
  auto a0 = h.source(100, ProcessRole::kMain, "a", 0);
  auto a1 = h.source(101, ProcessRole::kMain, "a", 1);
  auto b0 = h.source(102, ProcessRole::kMain, "b", 0);
  auto b1 = h.source(103, ProcessRole::kMain, "b", 1);
  for (auto* src : {&a0, &a1, &b0}) {
    h.engine.ingest(src->take(kT0 + ms(500)), kT0 + ms(500));
    h.engine.ingest(src->take(kT0 + sec(1), true), kT0 + sec(1));
  }
  for (std::int64_t t = 1; t <= 62; ++t)
    h.engine.ingest(b1.take(kT0 + sec(t)), kT0 + sec(t));
  auto s = h.tick(kT0 + sec(60));
  EXPECT_NE(s->find_job("a"), nullptr);
  EXPECT_EQ(s->stats.forgotten_ranks, 0u);
  s = h.tick(kT0 + sec(61));
  EXPECT_EQ(s->find_job("a"), nullptr);
  ASSERT_NE(s->find_job("b"), nullptr);
  EXPECT_EQ(find_rank(*s, "b", 0), nullptr);
  EXPECT_NE(find_rank(*s, "b", 1), nullptr);
  EXPECT_EQ(s->stats.forgotten_ranks, 3u);
  EXPECT_EQ(s->stats.forgotten_jobs, 1u);
  EXPECT_EQ(s->stats.ranks, 1u);
  // Job "b" goes once its last rank has been silent for forget_after.
  s = h.tick(kT0 + sec(62) + sec(60));
  EXPECT_EQ(s->find_job("b"), nullptr);
  EXPECT_EQ(s->stats.forgotten_ranks, 4u);
  EXPECT_EQ(s->stats.forgotten_jobs, 2u);
  EXPECT_EQ(s->stats.ranks, 0u);
  EXPECT_LE(s->stats.approx_memory_bytes, idle_memory + 4096);
}

TEST(EngineState, FinishedWhenEveryProcessSentItsFinalBatch) {
  Harness h(small_config());
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  h.send(main.take(kT0 + ms(5)));
  h.send(worker.take(kT0 + ms(6), true));
  auto s = h.tick(kT0 + ms(7));
  EXPECT_EQ(find_rank(*s, "job", 0)->state, RankState::kActive);
  EXPECT_TRUE(find_rank(*s, "job", 0)->processes[1].finished);
  h.send(main.take(kT0 + ms(8), true));
  s = h.tick(kT0 + sec(30));  // finished beats silent
  EXPECT_EQ(find_rank(*s, "job", 0)->state, RankState::kFinished);
  EXPECT_EQ(s->find_job("job")->state, RankState::kFinished);
  EXPECT_EQ(find_rank(*s, "job", 0)->end_ns, kT0 + ms(8));
  s = h.tick(kT0 + ms(8) + sec(61));
  EXPECT_EQ(s->find_job("job"), nullptr);
}

TEST(EngineState, RankLimitEvictsTheLeastRecentlySeenInactiveRankElseRejects) {
  EngineConfig c = small_config();
  c.max_ranks = 2;
  Harness h(c);
  auto r0 = h.source(100, ProcessRole::kMain, "job", 0);
  auto r1 = h.source(101, ProcessRole::kMain, "job", 1);
  auto r2 = h.source(102, ProcessRole::kMain, "job", 2);
  h.engine.ingest(r0.take(kT0), kT0);
  h.engine.ingest(r1.take(kT0), kT0 + sec(1));
  h.engine.ingest(r2.take(kT0), kT0 + sec(2));
  auto s = h.tick(kT0 + sec(2));
  EXPECT_EQ(s->stats.rejected_sources, 1u);
  EXPECT_EQ(find_rank(*s, "job", 2), nullptr);
  // Both silent now; rank 0 was seen least recently and goes.
  h.engine.ingest(r2.take(kT0 + ms(1)), kT0 + sec(12));
  s = h.tick(kT0 + sec(12));
  EXPECT_EQ(s->stats.evicted_ranks, 1u);
  EXPECT_EQ(find_rank(*s, "job", 0), nullptr);
  EXPECT_NE(find_rank(*s, "job", 1), nullptr);
  EXPECT_NE(find_rank(*s, "job", 2), nullptr);
}

TEST(EngineState, SourceLimitRejectsNewProcesses) {
  EngineConfig c = small_config();
  c.max_sources_per_rank = 2;
  Harness h(c);
  for (int pid = 100; pid < 103; ++pid) {
    auto src = h.source(pid, ProcessRole::kWorker);
    src.complete("POSIX", "read", kT0, ms(1));
    h.send(src.take(kT0 + ms(2)));
  }
  auto s = h.tick(kT0 + ms(2));
  EXPECT_EQ(s->stats.rejected_sources, 1u);
  EXPECT_EQ(find_rank(*s, "job", 0)->processes.size(), 2u);
  EXPECT_EQ(s->stats.sources, 2u);
  EXPECT_EQ(s->stats.events_processed, 2u);
}

TEST(EngineState, OpenRegionLimitCountsExcessBeginsUnpaired) {
  EngineConfig c = small_config();
  c.max_open_regions_per_source = 3;
  Harness h(c);
  auto main = h.source(100);
  for (std::uint32_t id = 1; id <= 5; ++id)
    main.begin("compute", "forward", kT0 + ms(id), id);
  h.send(main.take(kT0 + ms(6)));
  const RankSnapshot* r = find_rank(*h.tick(kT0 + ms(6)), "job", 0);
  EXPECT_EQ(r->processes[0].open_regions, 3u);
  EXPECT_EQ(r->counters.unpaired_events, 2u);
}

TEST(EngineState, CountersAddUpFromProcessToSnapshot) {
  Harness h(small_config());
  auto a = h.source(100, ProcessRole::kMain, "job-a", 0);
  auto w = h.source(300, ProcessRole::kWorker, "job-a", 0);
  auto b = h.source(200, ProcessRole::kMain, "job-b", 0);
  a.complete("compute", "f", kT0, ms(1)).complete("compute", "f", kT0 + ms(1), ms(1));
  h.send(a.take(kT0 + ms(2)));
  a.set_next_seq(4);  // batches 1-3 lost
  DecodedBatch lossy = a.take(kT0 + ms(3));
  lossy.dropped_since_last = 7;
  h.send(lossy);
  a.set_next_seq(0);  // the pid restarted: no loss counted
  h.send(a.take(kT0 + ms(4)));
  w.complete("POSIX", "read", kT0, ms(1));
  h.send(w.take(kT0 + ms(4)));
  b.complete("POSIX", "read", kT0, ms(1));
  h.send(b.take(kT0 + ms(4)));

  auto s = h.tick(kT0 + ms(5));
  const JobSnapshot* ja = s->find_job("job-a");
  ASSERT_NE(ja, nullptr);
  const ProcessSnapshot& p = ja->ranks[0].processes[0];
  EXPECT_EQ(p.counters.batches_received, 3u);
  EXPECT_EQ(p.counters.events_received, 2u);
  EXPECT_EQ(p.counters.lost_batches, 3u);
  EXPECT_EQ(p.counters.agent_dropped, 7u);
  EXPECT_EQ(ja->ranks[0].counters.events_received, 3u);
  EXPECT_EQ(ja->ranks[0].counters.batches_received, 4u);
  EXPECT_EQ(ja->counters.lost_batches, 3u);
  EXPECT_EQ(s->counters.events_received, 4u);
  EXPECT_EQ(s->counters.batches_received, 5u);
  EXPECT_EQ(s->counters.agent_dropped, 7u);
  EXPECT_EQ(s->stats.events_processed, 4u);
  ASSERT_EQ(s->jobs.size(), 2u);
  EXPECT_EQ(s->jobs[0].job, "job-a");
  EXPECT_EQ(s->jobs[1].job, "job-b");
}

// A training loop over many history lengths: memory stays where it was once
// the history, timeline and lateness are full.
TEST(EngineState, MemoryIsBoundedByConfigurationNotRunLength) {
  EngineConfig c = small_config();
  c.history_ns = ms(100);
  c.timeline_ns = ms(20);
  c.max_steps_kept = 64;
  Harness h(c);
  auto main = h.source(100);
  auto worker = h.source(300, ProcessRole::kWorker);
  std::uint64_t early = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t at = kT0 + us(500) * i;
    main.complete("loader", "fetch.iter", at, us(100))
        .complete("compute", "forward", at + us(100), us(400))
        .mark("step", at + us(499), i);
    worker.complete("POSIX", "read", at + us(50), us(300)).begin("data", "decode", at, 1, 301);
    worker.end(at + us(450), 1, 301);
    h.send(main.take(at + us(500)));
    h.send(worker.take(at + us(500)));
    if (i % 100 == 99) {
      auto s = h.tick(at + us(500));
      if (i == 499) early = s->stats.approx_memory_bytes;
      if (i > 499) {
        EXPECT_LE(s->stats.approx_memory_bytes, early + early / 10) << "at iteration " << i;
      }
    }
  }
  EXPECT_GT(early, 0u);
}

}  // namespace
}  // namespace stallwatch::collector::testing
