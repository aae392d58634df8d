// BatchPreparer / PreparedBatch: the work stallwatchd does on its receive
// thread gives the engine exactly the results of its own path. The property
// tests mix both paths against the oracle; these pin the edges.

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Two engines over one name table: `plain` takes batches as they are,
// `prepared` through a BatchPreparer.
struct Twin {
  Twin() : plain(small_config(), names), prepared(small_config(), names) {}

  BatchBuilder source(std::int32_t pid, ProcessRole role = ProcessRole::kMain) {
    return BatchBuilder(names, "job", 0, pid, role);
  }
  // Returns whether the prepared spans were usable.
  bool send(const DecodedBatch& b) {
    plain.ingest(b, b.sent_at_ns);
    preparer.prepare(b, prep);
    const bool spans = prep.spans_ready();
    prepared.ingest(b, b.sent_at_ns, &prep);
    return spans;
  }
  // Every window of rank 0 and its counters and timeline are the same in both.
  void expect_same(std::int64_t now) {
    auto a = plain.tick(now);
    auto b = prepared.tick(now);
    const RankSnapshot* x = find_rank(*a, "job", 0);
    const RankSnapshot* y = find_rank(*b, "job", 0);
    ASSERT_NE(x, nullptr);
    ASSERT_NE(y, nullptr);
    ASSERT_EQ(x->windows.size(), y->windows.size());
    for (std::size_t w = 0; w < x->windows.size(); ++w) {
      const WindowMetrics& p = x->windows[w];
      const WindowMetrics& q = y->windows[w];
      SCOPED_TRACE("window " + std::to_string(p.window_ns));
      EXPECT_EQ(p.start_ns, q.start_ns);
      EXPECT_EQ(p.end_ns, q.end_ns);
      EXPECT_EQ(p.compute_seconds, q.compute_seconds);
      EXPECT_EQ(p.app_io_seconds, q.app_io_seconds);
      EXPECT_EQ(p.io_seconds, q.io_seconds);
      EXPECT_EQ(p.fetch_seconds, q.fetch_seconds);
      EXPECT_EQ(p.comm_seconds, q.comm_seconds);
      EXPECT_EQ(p.device_busy_seconds, q.device_busy_seconds);
      EXPECT_EQ(p.unoverlapped_app_io_seconds, q.unoverlapped_app_io_seconds);
      EXPECT_EQ(p.unoverlapped_compute_seconds, q.unoverlapped_compute_seconds);
      EXPECT_EQ(p.data_stall_seconds, q.data_stall_seconds);
      EXPECT_EQ(p.steps, q.steps);
    }
    EXPECT_EQ(x->counters.late_events, y->counters.late_events);
    EXPECT_EQ(x->counters.unpaired_events, y->counters.unpaired_events);
    const auto ta = plain.timeline("job", 0, 3600);
    const auto tb = prepared.timeline("job", 0, 3600);
    ASSERT_TRUE(ta && tb);
    ASSERT_EQ(ta->regions.size(), tb->regions.size());
    for (std::size_t i = 0; i < ta->regions.size(); ++i) {
      EXPECT_EQ(ta->regions[i].start_ns, tb->regions[i].start_ns);
      EXPECT_EQ(ta->regions[i].end_ns, tb->regions[i].end_ns);
      EXPECT_EQ(ta->regions[i].classes, tb->regions[i].classes);
    }
  }

  NameTable names;
  Engine plain;
  Engine prepared;
  BatchPreparer preparer = prepared.make_preparer(nullptr);
  PreparedBatch prep;
};

TEST(BatchPreparer, MasksFollowTheMappingAndTheMainThread) {
  NameTable names;
  Engine engine(small_config(), names);
  BatchPreparer preparer = engine.make_preparer(nullptr);
  BatchBuilder main(names, "job", 0, 100);
  // dataloader "fetch" is FETCH only on the main thread (APP_IO elsewhere).
  main.complete("dataloader", "fetch", kT0, ms(1))
      .complete("dataloader", "fetch", kT0, ms(1), 7)
      .begin("compute", "forward", kT0, 1)
      .end(kT0 + ms(1), 1)
      .mark("step", kT0, 1);
  const DecodedBatch b = main.take(kT0 + ms(2));
  PreparedBatch prep;
  preparer.prepare(b, prep);
  ASSERT_TRUE(prep.matches(b.events.size()));
  const ClassMapping mapping = ClassMapping::defaults();
  const auto mask = [&](std::size_t i) { return static_cast<ClassMask>(prep.masks()[i]); };
  EXPECT_EQ(mask(0), mapping.classify("dataloader", "fetch", true));
  EXPECT_EQ(mask(1), mapping.classify("dataloader", "fetch", false));
  EXPECT_NE(mask(0), mask(1));
  EXPECT_EQ(mask(2), mapping.classify("compute", "forward", true));
  EXPECT_EQ(mask(3), 0);  // an End takes its Begin's classes
  EXPECT_EQ(mask(4), 0);
  EXPECT_TRUE(prep.spans_ready());
  EXPECT_FALSE(prep.matches(b.events.size() + 1));
}

TEST(BatchPreparer, SameResultsForAnInOrderLoop) {
  Twin t;
  auto main = t.source(100);
  auto worker = t.source(101, ProcessRole::kWorker);
  for (int i = 0; i < 20; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.mark("step", at, i)
        .complete("loader", "fetch.iter", at, ms(6))
        .complete("compute", "forward", at + ms(6), ms(2))
        .begin("compute", "backward", at + ms(8), 1)
        .end(at + ms(10), 1)
        .complete("gpu", "gemm", at + ms(6), us(1500), 5)
        .complete("gpu", "gemm", at + ms(7), us(1500), 5);  // overlaps the one before
    worker.complete("POSIX", "read", at + us(200), ms(3)).complete("POSIX", "read", at, ms(1));
    EXPECT_TRUE(t.send(main.take(at + ms(10))));
    EXPECT_TRUE(t.send(worker.take(at + ms(10))));
  }
  t.expect_same(kT0 + ms(200));
}

TEST(BatchPreparer, RegionsPastSentAtFallBackToTheEnginesPath) {
  Twin t;
  auto main = t.source(100);
  main.complete("compute", "forward", kT0, ms(4));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(5))));
  // Ends 3 ms after the batch was sent: the engine clips it at the watermark.
  main.complete("loader", "fetch.iter", kT0 + ms(5), ms(8));
  EXPECT_FALSE(t.send(main.take(kT0 + ms(10))));
  main.complete("compute", "forward", kT0 + ms(10), ms(4));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(20))));
  t.expect_same(kT0 + ms(40));
}

TEST(BatchPreparer, LateAndReorderedBatchesAreClippedAlike) {
  Twin t;
  auto main = t.source(100);
  auto other = t.source(200);
  main.complete("compute", "forward", kT0, ms(4));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(5))));
  // Moves the horizon well past kT0 + 5 ms (lateness 5 ms).
  main.complete("compute", "forward", kT0 + ms(20), ms(4));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(30))));
  // A batch of another process of the same rank, mostly before the horizon:
  // only its part after the horizon counts.
  other.complete("loader", "fetch.iter", kT0 + ms(2), ms(20))
      .complete("POSIX", "read", kT0 + ms(4), ms(2))
      .complete("POSIX", "read", kT0 + ms(21), ms(2));
  EXPECT_TRUE(t.send(other.take(kT0 + ms(26))));
  // An earlier-sent batch of `main` arriving after a later one (its source's
  // watermark is ahead of its sent_at).
  main.set_next_seq(1);
  main.complete("compute", "forward", kT0 + ms(25), ms(1));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(27))));
  t.expect_same(kT0 + ms(40));
}

TEST(BatchPreparer, AMismatchedPreparationIsIgnored) {
  Twin t;
  auto main = t.source(100);
  main.complete("compute", "forward", kT0, ms(4));
  const DecodedBatch first = main.take(kT0 + ms(5));
  main.complete("loader", "fetch.iter", kT0 + ms(5), ms(2)).complete("gpu", "k", kT0, ms(1), 5);
  const DecodedBatch second = main.take(kT0 + ms(10));
  // Prepared for `first`, handed with `second`: the engine does the work.
  t.preparer.prepare(first, t.prep);
  t.plain.ingest(first, first.sent_at_ns);
  t.prepared.ingest(first, first.sent_at_ns);
  t.plain.ingest(second, second.sent_at_ns);
  t.prepared.ingest(second, second.sent_at_ns, &t.prep);
  t.expect_same(kT0 + ms(20));
}

// The preparer reads names under the mutex while another thread interns.
TEST(BatchPreparer, ClassifiesNewNamesWhileAnotherThreadInterns) {
  NameTable names;
  std::mutex mutex;
  Engine engine(small_config(), names);
  BatchPreparer preparer = engine.make_preparer(&mutex);
  std::vector<DecodedBatch> batches;
  {
    std::lock_guard lock(mutex);
    BatchBuilder b(names, "job", 0, 100);
    for (int i = 0; i < 200; ++i) {
      b.complete("compute", "kernel_" + std::to_string(i), kT0 + ms(i), us(500));
      batches.push_back(b.take(kT0 + ms(i + 1)));
    }
  }
  std::thread interner([&] {
    for (int i = 0; i < 5000; ++i) {
      std::lock_guard lock(mutex);
      names.intern("other_" + std::to_string(i));
    }
  });
  PreparedBatch prep;
  const ClassMask compute = ClassMapping::defaults().classify("compute", "kernel_0", false);
  for (const auto& b : batches) {
    preparer.prepare(b, prep);
    ASSERT_TRUE(prep.matches(1));
    EXPECT_EQ(static_cast<ClassMask>(prep.masks()[0]), compute);
  }
  interner.join();
}

}  // namespace
}  // namespace stallwatch::collector::testing
