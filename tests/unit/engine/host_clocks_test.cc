// SPDX-License-Identifier: MIT
// Clock offsets per host: the largest sent_at - received over the window
// (the batch with the least delay), forgotten when the window passes.

#include "host_clocks.h"

#include <gtest/gtest.h>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

TEST(HostClocks, TheBatchWithTheLeastDelayGivesTheOffset) {
  detail::HostClocks clocks(sec(60), sec(1));
  const std::int64_t ahead = sec(90);
  // Host "b" runs 90 s ahead; its batches take 3 ms, 0.2 ms and 1 ms to arrive.
  for (const std::int64_t delay : {ms(3), us(200), ms(1)}) {
    const std::int64_t received = kT0 + sec(2) + delay * 7;
    clocks.observe("b", received - delay + ahead, received);
  }
  clocks.observe("a", kT0 + sec(2), kT0 + sec(2) + ms(2));
  const auto hosts = clocks.tick(kT0 + sec(3));
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "a");
  EXPECT_EQ(hosts[0].offset_ns, -ms(2));
  EXPECT_FALSE(hosts[0].warning);
  EXPECT_EQ(hosts[1].host, "b");
  EXPECT_EQ(hosts[1].offset_ns, ahead - us(200));
  EXPECT_EQ(hosts[1].samples, 3u);
  EXPECT_TRUE(hosts[1].warning);
  EXPECT_EQ(clocks.offset_ns("b"), ahead - us(200));
  EXPECT_EQ(clocks.offset_ns("unknown"), 0);
}

TEST(HostClocks, SamplesOlderThanTheWindowAreForgotten) {
  detail::HostClocks clocks(sec(10), sec(1));
  clocks.observe("a", kT0 + sec(1), kT0 + sec(1));           // offset 0, fast
  clocks.observe("a", kT0 + sec(8) - ms(50), kT0 + sec(8));  // a slower batch later
  EXPECT_EQ(clocks.tick(kT0 + sec(9)).at(0).offset_ns, 0);
  // 12 s: the fast batch left the window; the slow one is all there is.
  EXPECT_EQ(clocks.tick(kT0 + sec(12)).at(0).offset_ns, -ms(50));
  // 20 s: nothing left, the host is gone.
  EXPECT_TRUE(clocks.tick(kT0 + sec(20)).empty());
  EXPECT_EQ(clocks.offset_ns("a"), 0);
}

// Two hosts, the second 90 s behind: per-rank figures stay on each rank's own
// clock; the job's start and window spans are on the collector's.
TEST(HostClocks, JobViewsPutRanksOnTheCollectorClock) {
  Harness h(small_config());
  const std::int64_t behind = -sec(90);
  for (std::int32_t rank : {0, 1}) {
    const std::int64_t shift = rank == 1 ? behind : 0;
    BatchBuilder b(h.names, "job", rank, 100 + rank, ProcessRole::kMain,
                   rank == 1 ? "node-b" : "node-a");
    b.source().start_ns = kT0 + shift;
    for (int i = 0; i < 10; ++i) {
      const std::int64_t at = kT0 + ms(10 * i) + shift;
      b.complete("compute", "forward", at, ms(10));
      const DecodedBatch batch = b.take(at + ms(10));
      h.engine.ingest(batch, batch.sent_at_ns - shift + us(100));
    }
  }
  auto s = h.tick(kT0 + ms(100));
  ASSERT_EQ(s->hosts.size(), 2u);
  EXPECT_EQ(s->find_host("node-a")->offset_ns, -us(100));
  EXPECT_EQ(s->find_host("node-b")->offset_ns, behind - us(100));
  const JobSnapshot* job = s->find_job("job");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->ranks[1].host, "node-b");
  EXPECT_EQ(job->ranks[1].clock_offset_ns, behind - us(100));
  // The rank's own window is on its clock ...
  EXPECT_EQ(job->ranks[1].start_ns, kT0 + behind);
  // ... the job's start and its total window span are not 90 s longer.
  EXPECT_EQ(job->start_ns, kT0 + us(100));
  const JobWindow& total = job->windows.back();
  EXPECT_LE(total.mean.end_ns - total.mean.start_ns, ms(100) + us(200));
  EXPECT_NEAR(total.mean.compute_seconds, job->ranks[0].windows.back().compute_seconds, 1e-12);
}

}  // namespace
}  // namespace stallwatch::collector::testing
