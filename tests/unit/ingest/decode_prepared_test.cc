// SPDX-License-Identifier: MIT
// BatchDecoder::decode_prepared and BatchPreparer: the work stallwatchd does
// on its receive thread gives the engine exactly the results of its own
// path. The property tests (wire_property_test.cc, and the engine's) check
// the paths against the oracle; these pin the edges.

#include <gtest/gtest.h>

#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "test_batches.h"

namespace stallwatch::collector::testing {
namespace {

// Three engines over one name table: `plain` takes batches as they are,
// `prepared` through a BatchPreparer, `wire` as stallwatchd does: each
// batch encoded as a frame, validated, decoded and prepared in one pass
// (BatchDecoder::decode_prepared).
struct Twin {
  explicit Twin(const EngineConfig& config = small_config())
      : plain(config, names), prepared(config, names), wire(config, names) {}

  BatchBuilder source(std::int32_t pid, ProcessRole role = ProcessRole::kMain) {
    return BatchBuilder(names, "job", 0, pid, role);
  }
  // Returns whether the prepared regions were usable (on both prepared paths).
  bool send(const DecodedBatch& b) {
    plain.ingest(b, b.sent_at_ns);
    preparer.prepare(b, prep);
    const bool ready = prep.regions_ready();
    prepared.ingest(b, b.sent_at_ns, &prep);

    const EncodedFrame frame = encoder.encode(b, names);
    EXPECT_TRUE(frame.ok()) << frame.error;
    EXPECT_FALSE(decoder.decode_prepared(frame.bytes, wire_preparer, wire_batch, wire_prep));
    EXPECT_EQ(wire_prep.regions_ready(), ready);
    // Compact exactly when the regions are ready; the batch keeps only the
    // events the engine walks one by one.
    EXPECT_EQ(wire_prep.compact(), ready);
    EXPECT_EQ(wire_prep.event_count(), b.events.size());
    if (ready) {
      EXPECT_EQ(wire_batch.events.size(), prep.special().size());
    } else {
      EXPECT_EQ(wire_batch.events, b.events);
    }
    wire.ingest(wire_batch, b.sent_at_ns, &wire_prep);
    return ready;
  }
  // Every window of rank 0 and its counters and timeline are the same in all three.
  void expect_same(std::int64_t now) {
    {
      SCOPED_TRACE("prepared");
      expect_same(prepared, now);
    }
    SCOPED_TRACE("wire");
    expect_same(wire, now);
  }
  void expect_same(Engine& other, std::int64_t now) {
    auto a = plain.tick(now);
    auto b = other.tick(now);
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
    EXPECT_EQ(x->counters.events_received, y->counters.events_received);
    EXPECT_EQ(x->counters.late_events, y->counters.late_events);
    EXPECT_EQ(x->counters.unpaired_events, y->counters.unpaired_events);
    EXPECT_EQ(a->stats.events_processed, b->stats.events_processed);
    const auto ta = plain.timeline("job", 0, 3600);
    const auto tb = other.timeline("job", 0, 3600);
    ASSERT_TRUE(ta && tb);
    EXPECT_EQ(ta->truncated, tb->truncated);
    ASSERT_EQ(ta->regions.size(), tb->regions.size());
    for (std::size_t i = 0; i < ta->regions.size(); ++i) {
      const TimelineRegion& p = ta->regions[i];
      const TimelineRegion& q = tb->regions[i];
      SCOPED_TRACE("region " + std::to_string(i));
      EXPECT_EQ(p.start_ns, q.start_ns);
      EXPECT_EQ(p.end_ns, q.end_ns);
      EXPECT_EQ(p.open, q.open);
      EXPECT_EQ(p.pid, q.pid);
      EXPECT_EQ(p.tid, q.tid);
      EXPECT_EQ(p.classes, q.classes);
      EXPECT_EQ(p.cat, q.cat);
      EXPECT_EQ(p.name, q.name);
    }
    ASSERT_EQ(ta->marks.size(), tb->marks.size());
    for (std::size_t i = 0; i < ta->marks.size(); ++i) {
      EXPECT_EQ(ta->marks[i].ts_ns, tb->marks[i].ts_ns);
      EXPECT_EQ(ta->marks[i].pid, tb->marks[i].pid);
      EXPECT_EQ(ta->marks[i].value, tb->marks[i].value);
    }
    last_timeline_regions = ta->regions.size();
    last_truncated = ta->truncated;
  }

  NameTable names;
  Engine plain;
  Engine prepared;
  Engine wire;
  BatchPreparer preparer = prepared.make_preparer(nullptr);
  PreparedBatch prep;
  BatchEncoder encoder;
  BatchDecoder decoder{names};
  BatchPreparer wire_preparer = wire.make_preparer(nullptr);
  DecodedBatch wire_batch;
  PreparedBatch wire_prep;
  std::size_t last_timeline_regions = 0;
  bool last_truncated = false;
};

TEST(DecodePrepared, MasksFollowTheMappingAndTheMainThread) {
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
  EXPECT_TRUE(prep.regions_ready());
  // The events the engine still walks: the End, the mark and the main
  // thread's fetch (it ends a step); the Begin.
  EXPECT_EQ(prep.special(), (std::vector<std::uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(prep.timeline().size(), 2u);  // both Complete regions
  EXPECT_FALSE(prep.matches(b.events.size() + 1));
}

TEST(DecodePrepared, SameResultsForAnInOrderLoop) {
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

TEST(DecodePrepared, RegionsPastSentAtFallBackToTheEnginesPath) {
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

// A frame with an event that breaks a protocol rule, met in the middle of
// the one-pass decode: rejected and counted once, and nothing it filled in
// (region unions, timeline, kept events) leaks into the next batch.
TEST(DecodePrepared, AFrameWithABadEventIsRejectedAndLeavesNothingBehind) {
  Twin t;
  auto main = t.source(100);
  const auto good = [&](std::int64_t at) {
    main.complete("POSIX", "read", at, ms(2), 7).complete("compute", "forward", at + ms(1), ms(3));
    EXPECT_TRUE(t.send(main.take(at + ms(10))));
  };
  good(kT0);
  good(kT0 + ms(10));
  // Kernels where no good batch has any, then an event over 24 h.
  main.complete("gpu", "gemm", kT0 + ms(21), ms(1), 5)
      .complete("POSIX", "read", kT0 + ms(26), ms(2), 7)
      .mark("step", kT0 + ms(21), 1)
      .complete("compute", "forward", kT0 + ms(22), ms(25LL * 3600 * 1000))
      .complete("gpu", "gemm", kT0 + ms(23), ms(1), 5);
  const DecodedBatch bad = main.take(kT0 + ms(30));
  const EncodedFrame frame = t.encoder.encode(bad, t.names);
  ASSERT_TRUE(frame.ok());
  const auto error =
      t.decoder.decode_prepared(frame.bytes, t.wire_preparer, t.wire_batch, t.wire_prep);
  ASSERT_TRUE(error);
  EXPECT_FALSE(t.wire_prep.matches(t.wire_batch.events.size()));
  EXPECT_EQ(error->reason, FrameErrorReason::kSemantic);
  EXPECT_NE(error->detail.find("event 3"), std::string::npos) << error->detail;
  EXPECT_EQ(t.decoder.stats().frames_received, 3u);
  EXPECT_EQ(t.decoder.stats().invalid_total(), 1u);
  EXPECT_EQ(t.decoder.stats().events_received, 4u);

  // The same preparer and batches carry on with good frames; the lost
  // batch shows as a gap in every engine alike.
  for (int i = 0; i < 4; ++i)
    good(kT0 + ms(30 + 10 * i));
  EXPECT_EQ(t.decoder.stats().frames_received, 7u);
  EXPECT_EQ(t.decoder.stats().events_received, 12u);
  t.expect_same(kT0 + ms(90));
}

TEST(DecodePrepared, LateAndReorderedBatchesAreClippedAlike) {
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

TEST(DecodePrepared, AMismatchedPreparationIsIgnored) {
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
  t.expect_same(t.prepared, kT0 + ms(20));
}

// decode_prepared reads a (cat, name) pair's classes and timeline ids from a
// table indexed by the frame's own string indices. Each frame numbers its
// strings afresh, so the same indices name other strings in the next frame,
// and a pair seen first on a worker thread has other classes on the main one.
TEST(DecodePrepared, EachFrameClassifiesItsOwnStringIndices) {
  Twin t;
  auto main = t.source(100);
  // Indices 0 and 1 are "dataloader" and "fetch" here: APP_IO on thread 7,
  // then FETCH on the main thread (it ends a step).
  main.complete("dataloader", "fetch", kT0, ms(2), 7)
      .complete("dataloader", "fetch", kT0 + ms(1), ms(2))
      .complete("dataloader", "fetch", kT0 + ms(4), ms(1), 7);
  EXPECT_TRUE(t.send(main.take(kT0 + ms(5))));
  // And "compute" and "forward" here, then "gpu" and "gemm" (one frame each).
  main.complete("compute", "forward", kT0 + ms(5), ms(3));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(8))));
  main.complete("gpu", "gemm", kT0 + ms(8), ms(1), 5);
  EXPECT_TRUE(t.send(main.take(kT0 + ms(10))));
  main.complete("gpu", "gemm", kT0 + ms(10), ms(2), 5)
      .complete("dataloader", "fetch", kT0 + ms(12), ms(2))
      .complete("compute", "forward", kT0 + ms(14), ms(1));
  EXPECT_TRUE(t.send(main.take(kT0 + ms(15))));
  t.expect_same(kT0 + ms(20));
  ASSERT_EQ(t.last_timeline_regions, 8u);
  const auto timeline = t.wire.timeline("job", 0, 3600);
  ASSERT_TRUE(timeline);
  const ClassMapping mapping = ClassMapping::defaults();
  // In arrival order: the names and classes of each region as sent.
  const std::vector<std::tuple<std::string, std::string, bool>> sent = {
      {"dataloader", "fetch", false}, {"dataloader", "fetch", true}, {"dataloader", "fetch", false},
      {"compute", "forward", true},   {"gpu", "gemm", false},        {"gpu", "gemm", false},
      {"dataloader", "fetch", true},  {"compute", "forward", true}};
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto& [cat, name, on_main] = sent[i];
    const TimelineRegion& r = timeline->regions[i];
    SCOPED_TRACE("region " + std::to_string(i));
    EXPECT_EQ(r.cat, cat);
    EXPECT_EQ(r.name, name);
    EXPECT_EQ(r.classes, mapping.classify(cat, name, on_main));
  }
}

// Frames with more strings than the table takes (256), and frames sent so
// late in time that their events need clamping, take the general loop: the
// same results. So do frames with a table large enough for many strings.
TEST(DecodePrepared, FramesWithManyStringsOrFarTimesMatchTheEnginesPath) {
  for (const int kinds : {40, 300}) {
    SCOPED_TRACE(std::to_string(kinds) + " kernel and read names");
    Twin t;
    auto main = t.source(100);
    auto worker = t.source(101, ProcessRole::kWorker);
    for (int i = 0; i < 3; ++i) {
      const std::int64_t at = kT0 + ms(10 * i);
      main.mark("step", at, i).complete("loader", "fetch.iter", at, ms(4));
      for (int k = 0; k < kinds; ++k) {
        main.complete("gpu", "kernel_" + std::to_string(k), at + ms(4) + us(10 * k), us(8), 5);
        worker.complete("POSIX", "read_" + std::to_string(k), at + us(9 * k), us(6), 3);
      }
      EXPECT_TRUE(t.send(main.take(at + ms(10))));
      EXPECT_TRUE(t.send(worker.take(at + ms(10))));
    }
    t.expect_same(kT0 + ms(40));
    EXPECT_EQ(t.last_timeline_regions, 3u * (1 + 2 * kinds));
  }
  SCOPED_TRACE("far times");
  Twin t;
  auto main = t.source(100);
  // Past 2^62 ns the engine clamps times; the wire allows sent_at up to
  // int64 max - 48 h.
  const std::int64_t far =
      std::numeric_limits<std::int64_t>::max() - 3LL * 24 * 3600 * 1'000'000'000;
  main.complete("loader", "fetch.iter", far, ms(2))
      .complete("compute", "forward", far + ms(2), ms(3))
      .complete("POSIX", "read", far - ms(1), ms(2), 7);
  t.send(main.take(far + ms(5)));
  t.expect_same(far + ms(10));
}

// The prepared timeline block holds the batch's Complete regions in order,
// and the latest end of each of its chunks, whatever order the ends come in.
TEST(DecodePrepared, TheTimelineBlockHoldsTheCompleteRegionsAndTheirChunkEnds) {
  NameTable names;
  Engine engine(small_config(), names);
  BatchPreparer preparer = engine.make_preparer(nullptr);
  BatchBuilder main(names, "job", 0, 100);
  std::vector<std::pair<std::int64_t, std::int64_t>> want;
  for (int k = 0; k < 333; ++k) {
    const std::int64_t ts = kT0 + us(k * 7 % 101);
    const std::int64_t dur = us((k * 37) % 211 + 1);
    main.complete("compute", "forward", ts, dur, 1 + k % 3);
    if (k % 10 == 0) main.mark("step", ts, k);
    want.emplace_back(ts, ts + dur);
  }
  const DecodedBatch b = main.take(kT0 + ms(1));
  PreparedBatch prep;
  preparer.prepare(b, prep);
  ASSERT_TRUE(prep.regions_ready());
  const detail::TimelineBlock& block = prep.timeline();
  ASSERT_EQ(block.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(block.entry(i).start_ns, want[i].first);
    EXPECT_EQ(block.entry(i).end_ns, want[i].second);
    EXPECT_EQ(block.entry(i).source, 0);
  }
  for (std::size_t from = 0; from < want.size(); from += detail::TimelineBlock::kChunk) {
    for (std::size_t to = from + 1; to <= want.size(); to += 17) {
      std::int64_t m = std::numeric_limits<std::int64_t>::min();
      for (std::size_t i = from; i < to; ++i)
        m = std::max(m, want[i].second);
      EXPECT_EQ(block.max_end(from, to), m) << from << ".." << to;
    }
  }
  for (std::int64_t cutoff = kT0; cutoff <= kT0 + us(320); cutoff += us(3)) {
    for (std::size_t from = 0; from < want.size(); from += 29) {
      std::size_t first = from;
      while (first < want.size() && want[first].second < cutoff)
        ++first;
      EXPECT_EQ(block.first_ending_from(from, cutoff), first) << from << " " << cutoff;
    }
  }
  EXPECT_EQ(prep.min_complete_ts(), kT0);
  EXPECT_EQ(prep.special().size(), 34u);  // the marks
}

// Batches big enough for the timeline to adopt their prepared blocks whole,
// under a bound that drops some of every batch, mixed with regions closed by
// End events, steps, marks, a second process and a late batch: the timeline
// (what it keeps, what it dropped) and every window match.
TEST(DecodePrepared, WholeBlocksUnderTheTimelineBoundMatchTheEnginesPath) {
  EngineConfig config = small_config();
  config.timeline_max_regions = 700;
  config.timeline_ns = ms(60);
  Twin t(config);
  auto main = t.source(100);
  auto worker = t.source(101, ProcessRole::kWorker);
  int sent = 0;
  for (int i = 0; i < 12; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.mark("step", at, i).complete("loader", "fetch.iter", at, ms(3));
    for (int k = 0; k < 400; ++k) {
      const std::int64_t s = at + ms(3) + us(k * 15);
      main.complete("gpu", "gemm", s, us(40), 5 + k % 3);
      if (k % 50 == 0) main.begin("compute", "forward", s, k).end(s + us(700), k);
    }
    main.complete("compute", "backward", at + ms(4), ms(5));
    worker.complete("POSIX", "read", at + us(100), ms(2));
    for (int k = 0; k < 300; ++k)
      worker.complete("POSIX", "read", at + us(k * 20), us(15), 200 + k % 4);
    sent += t.send(main.take(at + ms(10)));
    sent += t.send(worker.take(at + ms(10)));
    if (i % 4 == 3) t.expect_same(at + ms(10));
  }
  EXPECT_EQ(sent, 24);  // every batch went through the prepared path
  // A late batch of a third process, its earliest region before the horizon.
  auto late = t.source(102, ProcessRole::kWorker);
  for (int k = 0; k < 300; ++k)
    late.complete("POSIX", "read", kT0 + ms(100) + us(k * 40), us(30));
  EXPECT_TRUE(t.send(late.take(kT0 + ms(120))));
  t.expect_same(kT0 + ms(120));
  EXPECT_EQ(t.last_timeline_regions, 700u);
  EXPECT_TRUE(t.last_truncated);
  const auto snap = t.prepared.tick(kT0 + ms(120));
  EXPECT_GT(find_rank(*snap, "job", 0)->counters.late_events, 0u);
}

// The timeline adopts each large batch's block and drops older ones, some
// when the regions that End events closed go in after the block, before the
// bound is applied: the storage of every block dropped comes back, and each
// batch hands its preparer a block to fill again (none from malloc).
TEST(DecodePrepared, EachBatchGetsBlockStorageBackFromTheTimeline) {
  EngineConfig config = small_config();
  config.timeline_max_regions = 1000;
  Twin t(config);
  auto main = t.source(100);
  for (int i = 0; i < 30; ++i) {
    const std::int64_t at = kT0 + ms(10 * i);
    main.mark("step", at, i).complete("loader", "fetch.iter", at, ms(3));
    for (int k = 0; k < 300; ++k) {
      const std::int64_t s = at + ms(3) + us(k * 20);
      main.complete("gpu", "gemm", s, us(15), 5);
      if (k % 3 == 0) main.begin("compute", "forward", s, k).end(s + us(10), k);
    }
    EXPECT_TRUE(t.send(main.take(at + ms(10))));
    if (i < 4) continue;  // the timeline fills up first
    SCOPED_TRACE("batch " + std::to_string(i));
    EXPECT_GE(t.prep.timeline().capacity(), 300u);
    EXPECT_GE(t.wire_prep.timeline().capacity(), 300u);
  }
  t.expect_same(kT0 + ms(300));
}

// The preparer reads names under the mutex while another thread interns.
TEST(DecodePrepared, ClassifiesNewNamesWhileAnotherThreadInterns) {
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
