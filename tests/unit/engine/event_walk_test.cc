// SPDX-License-Identifier: MIT
#include "event_walk.h"

#include <gtest/gtest.h>

#include <iterator>
#include <tuple>
#include <vector>

#include "stallwatch/device_lane.h"
#include "stallwatch/event_flags.h"
#include "stallwatch/protocol.h"
#include "test_batches.h"

namespace stallwatch::collector::detail {
namespace {

using testing::BatchBuilder;

constexpr ClassMask kComputeBit = class_bit(EventClass::kCompute);
constexpr ClassMask kIoBit = class_bit(EventClass::kIo);
constexpr ClassMask kFetchBits = class_bit(EventClass::kFetch) | class_bit(EventClass::kAppIo);

using Bps = std::vector<std::pair<std::int64_t, ClassMask>>;

// One rank's parts that a walk writes to, with the engine's default names.
struct Rig {
  explicit Rig(NameTable& n, std::size_t max_open = 16)
      : names(n),
        progress(n.intern("step"), n.intern("epoch.start"), n.intern("batch_size")),
        gpu(gpu_names(n), 10, 100),
        io_calls(IoCallNames::intern(n)),
        cuda_runtime(n.intern("cuda_runtime")),
        walk(classes, coverage, timeline, progress, gpu, max_open, io_calls, io, cuda_runtime,
             launches, files, 16, kernels) {}

  static std::array<NameId, kGpuCounterCount> gpu_names(NameTable& n) {
    std::array<NameId, kGpuCounterCount> out{};
    for (std::size_t c = 0; c < kGpuCounterCount; ++c)
      out[c] = n.intern(agent_counter_name(static_cast<GpuCounter>(c)));
    return out;
  }

  // Applies `b` as the rank's source 0, then moves the source's watermark.
  void apply(const DecodedBatch& b, WalkBounds bounds = {}, PreparedBatch* prepared = nullptr) {
    if (src.open.empty() && src.watermark_ns == kNoTime) src.info = b.source;
    walk.apply(b, prepared, src, 0, bounds);
    src.watermark_ns = std::max(src.watermark_ns, b.sent_at_ns);
  }
  Bps take() {
    Bps out;
    for (const Breakpoint& bp : coverage.take())
      out.emplace_back(bp.t, bp.mask);
    return out;
  }
  std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask>> regions() const {
    std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask>> out;
    timeline.for_each_region(
        [&](const TimelineEntry& e) { out.emplace_back(e.start_ns, e.end_ns, e.mask); });
    return out;
  }
  std::vector<std::int64_t> steps() const {
    std::vector<std::int64_t> out;
    progress.steps().for_each_pending(1'000'000,
                                      [&](const StepTracker::Step& s) { out.push_back(s.ts_ns); });
    return out;
  }

  NameTable& names;
  ClassMapping mapping = ClassMapping::defaults();
  ClassCache classes{mapping, names};
  BatchCoverage coverage;
  TimelineStore timeline{1'000'000, 1000};
  TrainingProgress progress;
  DeviceLaneCounters gpu;
  IoCallNames io_calls;
  IoVolumeTracker io{10};
  NameId cuda_runtime = NameTable::kEmpty;
  LaunchTracker launches{10};
  FileIoTracker files{10, 4, 16};
  KernelTracker kernels{10, 4};
  EventWalk walk;
  SourceTracker src;
};

TEST(EventWalk, CompleteRegionsAddTheirMetricClassesAndTimelineEntries) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.complete("compute", "forward", 100, 50)
      .complete("POSIX", "read", 120, 10, 7)
      .complete("pipeline", "stage", 10, 5);
  rig.apply(b.take(200));
  EXPECT_EQ(rig.take(),
            (Bps{{100, kComputeBit}, {120, kComputeBit | kIoBit}, {130, kComputeBit}, {150, 0}}));
  EXPECT_EQ(rig.timeline.region_count(), 3u);
  EXPECT_EQ(rig.src.counters.late_events, 0u);
}

TEST(EventWalk, LateEventsCountAndOnlyTheirPartFromTheLowerBoundIsUsed) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.complete("compute", "forward", 100, 50).mark("note", 105, 1).mark("note", 115, 2);
  rig.apply(b.take(200), WalkBounds{110, 0});
  EXPECT_EQ(rig.take(), (Bps{{110, kComputeBit}, {150, 0}}));
  EXPECT_EQ(rig.src.counters.late_events, 2u);       // the region and the first mark
  EXPECT_EQ(std::get<0>(rig.regions().at(0)), 100);  // the timeline keeps it as sent
  ASSERT_EQ(rig.timeline.marks().size(), 1u);
  EXPECT_EQ(rig.timeline.marks()[0].value, 2);

  // Before the rank's start nothing counts, but nothing is late either.
  b.complete("compute", "forward", 300, 50);
  rig.apply(b.take(400), WalkBounds{110, 320});
  EXPECT_EQ(rig.take(), (Bps{{320, kComputeBit}, {350, 0}}));
  EXPECT_EQ(rig.src.counters.late_events, 2u);
}

TEST(EventWalk, RegionsAreCutAtTheBatchsSentAt) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.complete("compute", "forward", 100, 100).complete("compute", "forward", 300, 10);
  rig.apply(b.take(140));
  EXPECT_EQ(rig.take(), (Bps{{100, kComputeBit}, {140, 0}}));
}

TEST(EventWalk, BeginAndEndPairAcrossBatches) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("compute", "forward", 100, 1);
  rig.apply(b.take(150));
  EXPECT_TRUE(rig.take().empty());
  EXPECT_EQ(rig.src.open.size(), 1u);
  b.end(200, 1);
  rig.apply(b.take(250));
  EXPECT_EQ(rig.take(), (Bps{{100, kComputeBit}, {200, 0}}));
  EXPECT_TRUE(rig.src.open.empty());
  EXPECT_EQ(
      rig.regions(),
      (std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask>>{{100, 200, kComputeBit}}));
}

TEST(EventWalk, AnEndBeforeItsBeginWaitsForIt) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.end(200, 1);
  rig.apply(b.take(250));
  ASSERT_EQ(rig.src.open.size(), 1u);
  EXPECT_TRUE(rig.src.open.find(region_key(100, 1))->orphan_end);
  b.begin("compute", "forward", 100, 1);
  rig.apply(b.take(260));
  EXPECT_EQ(rig.take(), (Bps{{100, kComputeBit}, {200, 0}}));
  EXPECT_TRUE(rig.src.open.empty());
  EXPECT_EQ(rig.src.counters.unpaired_events, 0u);
}

TEST(EventWalk, ReusedKeysAndRegionsPastTheBoundAreUnpaired) {
  NameTable names;
  Rig rig(names, 2);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("compute", "a", 100, 1).begin("compute", "b", 110, 1);
  rig.apply(b.take(200));
  EXPECT_EQ(rig.src.counters.unpaired_events, 1u);
  ASSERT_EQ(rig.src.open.size(), 1u);
  EXPECT_EQ(rig.src.open.find(region_key(100, 1))->begin_ns, 110);
  b.begin("compute", "c", 120, 2).begin("compute", "d", 130, 3).end(140, 9);
  rig.apply(b.take(200));
  EXPECT_EQ(rig.src.counters.unpaired_events, 3u);
  EXPECT_EQ(rig.src.open.size(), 2u);
}

TEST(EventWalk, RegionsClosedByEndsReachTheTimelineAfterTheCompleteOnes) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("compute", "forward", 100, 1);
  rig.apply(b.take(120));
  b.end(150, 1).complete("POSIX", "read", 160, 10);
  rig.apply(b.take(200));
  EXPECT_EQ(rig.regions(), (std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask>>{
                               {160, 170, kIoBit}, {100, 150, kComputeBit}}));
}

TEST(EventWalk, MarksAndCountersGoToTheProgressAndTheDeviceLanes) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.mark("step", 100, 7)
      .mark("epoch.start", 100, 2)
      .counter("batch_size", 100, 32)
      .counter("nvml.power_watts", 100, 250, wire::device_lane(0, wire::kDeviceWideStream))
      .counter("nvml.power_watts", 100, 250);  // not on a lane
  rig.apply(b.take(200));
  EXPECT_EQ(rig.progress.step(), 7);
  EXPECT_EQ(rig.progress.epoch(), 2);
  EXPECT_TRUE(rig.progress.has_batch_size());
  EXPECT_EQ(rig.steps(), (std::vector<std::int64_t>{100}));
  EXPECT_EQ(rig.gpu.snapshot({0}, 200).devices.size(), 1u);
  EXPECT_EQ(rig.timeline.marks().size(), 2u);
}

TEST(EventWalk, MainThreadFetchEndsOnTimeAreSteps) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.complete("loader", "fetch.iter", 100, 10)
      .complete("loader", "fetch.iter", 120, 10, 9)  // another thread
      .complete("loader", "fetch.iter", 40, 10)      // ends before the horizon
      .begin("loader", "fetch.iter", 130, 1)
      .end(145, 1);
  rig.apply(b.take(200), WalkBounds{60, 0});
  EXPECT_EQ(rig.steps(), (std::vector<std::int64_t>{110, 145}));
  EXPECT_EQ(rig.take(), (Bps{{100, kFetchBits}, {110, 0}, {120, kFetchBits}, {145, 0}}));
}

// The bytes a read or write call's End carries count at its end, in its
// cell, when the End was on time; an End that waits for its Begin keeps them.
TEST(EventWalk, ReadAndWriteCallsAddTheirBytesAtTheirEnd) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("POSIX", "read", 100, 1)
      .end(105, 1, 0, 4096)
      .begin("STDIO", "fwrite", 110, 2)
      .end(112, 2, 0, 100)
      .begin("POSIX", "pread64", 30, 3)
      .end(40, 3, 0, 7)  // late: before the horizon
      .begin("POSIX", "lseek", 120, 4)
      .end(121, 4, 0, 1000)  // not a read or write
      .begin("data", "read", 122, 5)
      .end(123, 5, 0, 1000)  // not a POSIX or stdio call
      .end(135, 6, 0, 512)   // before its Begin
      .begin("POSIX", "readv", 130, 6);
  rig.apply(b.take(200), WalkBounds{60, 0});
  std::vector<std::pair<std::int64_t, IoVolume>> cells;
  rig.io.for_each_pending(100,
                          [&](std::int64_t k, const IoVolume& v) { cells.emplace_back(k, v); });
  EXPECT_EQ(cells, (std::vector<std::pair<std::int64_t, IoVolume>>{{10, IoVolume{4096, 0, 1, 0}},
                                                                   {11, IoVolume{0, 100, 0, 1}},
                                                                   {13, IoVolume{512, 0, 1, 0}}}));
}

// A call timed whole (a Complete with wire::kEventFlagCompleteValue) adds its bytes at
// its end, when that end is not before the horizon; a Complete without the
// flag adds nothing. Its time counts like any Complete region's.
TEST(EventWalk, ReadAndWriteCallsTimedWholeAddTheirBytesAtTheirEnd) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.complete("POSIX", "read", 100, 5)
      .complete("STDIO", "fwrite", 110, 2, 9)  // another thread
      .complete("POSIX", "pread64", 50, 20)    // starts late, ends after the horizon
      .complete("POSIX", "pread64", 30, 10)    // ends before the horizon
      .complete("POSIX", "lseek", 120, 1)      // not a read or write
      .complete("data", "read", 122, 1)        // not a POSIX or stdio call
      .complete("POSIX", "read", 125, 3)       // end of file: a call, no bytes
      .complete("POSIX", "read", 130, 5);      // no value: counts nothing
  DecodedBatch batch = b.take(200);
  const std::int64_t values[] = {4096, 100, 8, 7, 1000, 1000, 0};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    batch.events[i].flags = wire::kEventFlagCompleteValue;
    batch.events[i].value = values[i];
  }
  rig.apply(batch, WalkBounds{60, 0});
  std::vector<std::pair<std::int64_t, IoVolume>> cells;
  rig.io.for_each_pending(100,
                          [&](std::int64_t k, const IoVolume& v) { cells.emplace_back(k, v); });
  EXPECT_EQ(cells, (std::vector<std::pair<std::int64_t, IoVolume>>{{7, IoVolume{8, 0, 1, 0}},
                                                                   {10, IoVolume{4096, 0, 1, 0}},
                                                                   {11, IoVolume{0, 100, 0, 1}},
                                                                   {12, IoVolume{0, 0, 1, 0}}}));
}

// The wait that ended a loop (END marked kEndLoopExhausted) is measured as
// fetch time and reaches the timeline marked, but brought no batch: no step.
TEST(EventWalk, ALoopEndingWaitIsFetchTimeButNoStep) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("loader", "fetch.iter", 100, 1)
      .end(110, 1)
      .begin("loader", "fetch.iter", 130, 2)
      .end(145, 2, 0, wire::kEndLoopExhausted)
      .end(170, 3, 0, wire::kEndLoopExhausted)  // before its Begin
      .begin("loader", "fetch.iter", 160, 3);
  rig.apply(b.take(200));
  EXPECT_EQ(rig.steps(), (std::vector<std::int64_t>{110}));
  EXPECT_EQ(
      rig.take(),
      (Bps{{100, kFetchBits}, {110, 0}, {130, kFetchBits}, {145, 0}, {160, kFetchBits}, {170, 0}}));
  std::vector<bool> loop_end;
  rig.timeline.for_each_region([&](const TimelineEntry& e) { loop_end.push_back(e.loop_end); });
  EXPECT_EQ(loop_end, (std::vector<bool>{false, true, true}));
}

// The same batch walked plainly and with a PreparedBatch (regions ready or
// not) leaves the same coverage, timeline, counters and progress.
TEST(EventWalk, PreparedBatchesGiveTheSameResultsAsPlainOnes) {
  for (const std::int64_t sent_at : {500, 180}) {  // 180: a region ends later, not ready
    NameTable names;
    BatchBuilder b(names, "job", 0, 100);
    b.complete("compute", "forward", 100, 50)
        .complete("POSIX", "read", 40, 30, 7)
        .complete("loader", "fetch.iter", 150, 40)
        .begin("comm", "allreduce", 120, 1)
        .end(170, 1)
        .end(175, 2)
        .mark("step", 160, 3)
        .counter("batch_size", 90, 16);
    const DecodedBatch batch = b.take(sent_at);

    Rig plain(names);
    plain.apply(batch, WalkBounds{60, 0});
    Rig prepared_rig(names);
    const ClassMapping mapping = ClassMapping::defaults();
    BatchPreparer preparer(mapping, names, nullptr);
    PreparedBatch prepared;
    preparer.prepare(batch, prepared);
    ASSERT_TRUE(prepared.matches(batch.events.size()));
    EXPECT_EQ(prepared.regions_ready(), sent_at == 500);
    prepared_rig.apply(batch, WalkBounds{60, 0}, &prepared);

    EXPECT_EQ(plain.take(), prepared_rig.take()) << sent_at;
    EXPECT_EQ(plain.regions(), prepared_rig.regions()) << sent_at;
    EXPECT_EQ(plain.steps(), prepared_rig.steps()) << sent_at;
    EXPECT_EQ(plain.src.counters.late_events, 1u) << sent_at;
    EXPECT_EQ(prepared_rig.src.counters.late_events, 1u) << sent_at;
    EXPECT_EQ(plain.src.open.size(), 1u) << sent_at;  // the orphan End
    EXPECT_EQ(prepared_rig.src.open.size(), 1u) << sent_at;
    EXPECT_TRUE(prepared_rig.progress.has_batch_size()) << sent_at;
  }
}

TEST(EventWalk, AFinalBatchEndsOpenRegionsAtItsSentAt) {
  NameTable names;
  Rig rig(names);
  BatchBuilder b(names, "job", 0, 100);
  b.begin("compute", "forward", 100, 1).end(50, 2);
  rig.apply(b.take(150));
  EXPECT_TRUE(rig.take().empty());
  rig.walk.end_open_regions(rig.src, 0, 300, WalkBounds{120, 0});
  EXPECT_EQ(rig.take(), (Bps{{120, kComputeBit}, {300, 0}}));
  EXPECT_EQ(rig.src.counters.unpaired_events, 2u);  // the Begin and the orphan End
  EXPECT_TRUE(rig.src.open.empty());
  EXPECT_EQ(
      rig.regions(),
      (std::vector<std::tuple<std::int64_t, std::int64_t, ClassMask>>{{100, 300, kComputeBit}}));
}

}  // namespace
}  // namespace stallwatch::collector::detail
