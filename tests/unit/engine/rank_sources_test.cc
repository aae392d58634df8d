// SPDX-License-Identifier: MIT
#include "rank_sources.h"

#include <gtest/gtest.h>

#include <string>

namespace stallwatch::collector::detail {
namespace {

DecodedBatch batch(std::string host, std::int32_t pid, std::uint64_t seq,
                   std::int64_t sent_at = 1000) {
  DecodedBatch b;
  b.source.job = "job";
  b.source.host = std::move(host);
  b.source.pid = pid;
  b.seq = seq;
  b.sent_at_ns = sent_at;
  return b;
}

// Adds the source of `b` (first time `first`) and counts the batch. The
// reference is good until the next add.
SourceTracker& add(RankSources& s, const DecodedBatch& b, std::int64_t first = 500) {
  std::size_t index = 0;
  SourceTracker& src = s.add(b, first, index);
  s.receive(src, index, b, 0, b.events.size());
  return src;
}

SourceTracker& source(RankSources& s, std::string host, std::int32_t pid) {
  std::size_t index = 0;
  SourceTracker* src = s.find(batch(std::move(host), pid, 0).source, index);
  EXPECT_NE(src, nullptr);
  return *src;
}

TEST(RankSources, FindsASourceByHostAndPid) {
  RankSources s(4);
  add(s, batch("a", 7, 0));
  add(s, batch("b", 7, 0));
  std::size_t index = 99;
  EXPECT_EQ(s.find(batch("c", 7, 0).source, index), nullptr);
  EXPECT_EQ(s.find(batch("a", 8, 0).source, index), nullptr);
  SourceTracker* found = s.find(batch("b", 7, 1).source, index);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->info.host, "b");
  EXPECT_EQ(index, 1u);
  ASSERT_NE(s.find(batch("a", 7, 1).source, index), nullptr);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(s.size(), 2u);
}

TEST(RankSources, RefusesSourcesPastTheBound) {
  RankSources s(2);
  EXPECT_FALSE(s.full());
  add(s, batch("a", 1, 0));
  add(s, batch("a", 2, 0));
  EXPECT_TRUE(s.full());
}

TEST(RankSources, StartIsTheClaimedOneUnlessUnknownOrAfterTheFirstBatch) {
  RankSources s(4);
  DecodedBatch b = batch("a", 1, 0);
  b.source.start_ns = 300;
  EXPECT_EQ(add(s, b, 500).start_ns, 300);
  b = batch("a", 2, 0);
  b.source.start_ns = 600;
  EXPECT_EQ(add(s, b, 500).start_ns, 500);
  b = batch("a", 3, 0);
  b.source.start_ns = 0;
  EXPECT_EQ(add(s, b, 500).start_ns, 500);
}

TEST(RankSources, SequenceGapsAreLostBatchesAndARestartIsNot) {
  RankSources s(4);
  SourceTracker& src = add(s, batch("a", 1, 5));
  s.continue_with(src, batch("a", 1, 6));
  EXPECT_EQ(src.counters.lost_batches, 0u);
  s.continue_with(src, batch("a", 1, 9));
  EXPECT_EQ(src.counters.lost_batches, 2u);
  s.continue_with(src, batch("a", 1, 0));  // pid reused by a new process
  EXPECT_EQ(src.counters.lost_batches, 2u);
  s.continue_with(src, batch("a", 1, 2));
  EXPECT_EQ(src.counters.lost_batches, 3u);
}

TEST(RankSources, ReceiveCountsAndANonFinalBatchReopensAFinishedSource) {
  RankSources s(4);
  DecodedBatch b = batch("a", 1, 0);
  b.dropped_since_last = 3;
  b.events.resize(4);
  SourceTracker& src = add(s, b);
  s.receive(src, 0, b, 70, 10);
  EXPECT_EQ(src.counters.batches_received, 2u);
  EXPECT_EQ(src.counters.events_received, 14u);
  EXPECT_EQ(src.counters.agent_dropped, 6u);
  EXPECT_EQ(src.last_seen_ns, 70);
  EXPECT_EQ(s.last_seen_ns(), 70);
  s.receive(src, 0, b, 20, 0);
  EXPECT_EQ(s.last_seen_ns(), 70);

  s.finish(src, 1000);
  s.refresh_state();
  EXPECT_TRUE(s.finished());
  s.receive(src, 0, b, 80, 0);
  s.refresh_state();
  EXPECT_FALSE(src.finished);
  EXPECT_FALSE(s.finished());
}

TEST(RankSources, FinishedWhenEverySourceSentItsFinalBatch) {
  RankSources s(4);
  add(s, batch("a", 1, 0));
  add(s, batch("a", 2, 0));
  SourceTracker& a = source(s, "a", 1);
  SourceTracker& b = source(s, "a", 2);
  s.lower_start(500, kNoTime);
  s.advance_watermark(a, 1500);
  s.advance_watermark(b, 1200);
  s.advance_watermark(b, 1100);
  EXPECT_EQ(b.watermark_ns, 1200);
  EXPECT_EQ(s.watermark_ns(), 1500);
  s.finish(a, 1400);
  s.refresh_state();
  EXPECT_FALSE(s.finished());
  EXPECT_EQ(s.state(0, 100), RankState::kActive);
  s.finish(b, 1300);
  s.refresh_state();
  ASSERT_TRUE(s.finished());
  EXPECT_EQ(s.end_ns(), 1500);  // the latest watermark or final batch
  EXPECT_EQ(s.state(1'000'000, 100), RankState::kFinished);
}

TEST(RankSources, SilentAfterTheConfiguredTimeWithoutBatches) {
  RankSources s(4);
  SourceTracker& src = add(s, batch("a", 1, 0));
  s.receive(src, 0, batch("a", 1, 1), 1000, 0);
  EXPECT_EQ(s.state(1099, 100), RankState::kActive);
  EXPECT_EQ(s.state(1100, 100), RankState::kSilent);
}

TEST(RankSources, StartMovesEarlierButNotBeforeTheHorizon) {
  RankSources s(4);
  EXPECT_FALSE(s.has_start());
  EXPECT_TRUE(s.lower_start(800, kNoTime));
  EXPECT_TRUE(s.has_start());
  EXPECT_EQ(s.start_ns(), 800);
  EXPECT_FALSE(s.lower_start(900, kNoTime));
  EXPECT_TRUE(s.lower_start(700, kNoTime));
  EXPECT_EQ(s.start_ns(), 700);
  EXPECT_TRUE(s.lower_start(100, 650));
  EXPECT_EQ(s.start_ns(), 650);
  EXPECT_FALSE(s.lower_start(100, 700));
  EXPECT_EQ(s.start_ns(), 650);
}

TEST(RankSources, DeviceSignalPrefersCuptiThenCudaEvents) {
  RankSources s(4);
  EXPECT_EQ(s.device(), DeviceSignal::kComputeProxy);
  DecodedBatch b = batch("a", 1, 0);
  b.source.device_source = DeviceSource::kCudaEvents;
  add(s, b);
  EXPECT_EQ(s.device(), DeviceSignal::kCudaEvents);
  b = batch("a", 2, 0);
  b.source.device_source = DeviceSource::kCupti;
  add(s, b);
  EXPECT_EQ(s.device(), DeviceSignal::kCupti);
  // A later batch may change what a source reports.
  b.source.device_source = DeviceSource::kNone;
  s.continue_with(source(s, "a", 2), b);
  EXPECT_EQ(s.device(), DeviceSignal::kCudaEvents);
  DecodedBatch again = batch("a", 1, 1);
  again.source.agent_version = "2.0";
  SourceTracker& a = source(s, "a", 1);
  s.continue_with(a, again);
  EXPECT_EQ(a.info.agent_version, "2.0");
  EXPECT_EQ(s.device(), DeviceSignal::kComputeProxy);
}

TEST(RankSources, OwnDeviceEventsAreTheSignalWhenNoneIsDeclared) {
  RankSources s(4);
  SourceTracker& a = add(s, batch("a", 1, 0));
  s.saw_device_events(a);
  EXPECT_EQ(s.device(), DeviceSignal::kTrace);
  // A declared CUDA-event or CUPTI source is preferred to the events.
  DecodedBatch b = batch("a", 2, 0);
  b.source.device_source = DeviceSource::kCudaEvents;
  add(s, b);
  EXPECT_EQ(s.device(), DeviceSignal::kCudaEvents);
  // A source that changes its declaration starts over: its earlier device
  // events said nothing about what it sends now.
  DecodedBatch c = batch("a", 1, 1);
  c.source.device_source = DeviceSource::kNvml;
  s.continue_with(source(s, "a", 1), c);
  b.source.device_source = DeviceSource::kNone;
  s.continue_with(source(s, "a", 2), b);
  EXPECT_EQ(s.device(), DeviceSignal::kComputeProxy);
}

TEST(RankSources, OrphanEndsBeforeTheHorizonExpireAsUnpaired) {
  RankSources s(4);
  SourceTracker& src = add(s, batch("a", 1, 0));
  OpenRegion begin;
  begin.key = region_key(1, 1);
  begin.begin_eff_ns = 10;
  OpenRegion orphan;
  orphan.key = region_key(1, 2);
  orphan.orphan_end = true;
  orphan.end_eff_ns = 20;
  OpenRegion later = orphan;
  later.key = region_key(1, 3);
  later.end_eff_ns = 40;
  src.open.add(begin);
  src.open.add(orphan);
  src.open.add(later);
  s.expire_orphan_ends(30);
  EXPECT_EQ(src.counters.unpaired_events, 1u);
  ASSERT_EQ(src.open.size(), 2u);
  EXPECT_NE(src.open.find(region_key(1, 1)), nullptr);
  EXPECT_NE(src.open.find(region_key(1, 3)), nullptr);
}

TEST(RankSources, DescribeListsProcessesAndSumsTheirCounters) {
  RankSources s(4);
  add(s, batch("a", 1, 0));
  add(s, batch("b", 2, 3));
  SourceTracker& a = source(s, "a", 1);
  SourceTracker& b = source(s, "b", 2);
  s.lower_start(400, kNoTime);
  s.advance_watermark(a, 900);
  a.counters.late_events = 2;
  b.counters.late_events = 3;
  OpenRegion open;
  open.key = region_key(1, 1);
  b.open.add(open);
  OpenRegion orphan = open;
  orphan.key = region_key(1, 2);
  orphan.orphan_end = true;
  b.open.add(orphan);

  RankSnapshot r;
  s.describe(r);
  EXPECT_EQ(r.start_ns, 400);
  EXPECT_EQ(r.end_ns, 900);  // the watermark while running
  EXPECT_EQ(r.watermark_ns, 900);
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[0].host, "a");
  EXPECT_EQ(r.processes[1].pid, 2);
  EXPECT_EQ(r.processes[1].open_regions, 1u);  // orphan Ends are not open regions
  EXPECT_EQ(r.counters.late_events, 5u);
  EXPECT_EQ(r.counters.batches_received, 2u);
  EXPECT_EQ(s.late_events(), 5u);
  EXPECT_GT(s.bytes(), 2 * sizeof(SourceTracker) - 1);
}

}  // namespace
}  // namespace stallwatch::collector::detail
