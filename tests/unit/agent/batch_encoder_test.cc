// SPDX-License-Identifier: MIT
#include "batch_encoder.h"

#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "name_table.h"
#include "stallwatch/protocol.h"
#include "test_collector.h"

namespace stallwatch::agent {
namespace {

using test::decode_batch;
using test::ReceivedBatch;

constexpr std::int64_t kEpochAnchor = 1'700'000'000'000'000'000;

// 1 tick = 0.5 ns, tick 1000 = kEpochAnchor.
TimeBase test_time_base() {
  TimeBase base;
  base.current = TimeSegment{1000, kEpochAnchor, std::uint64_t{1} << 31};
  base.previous = base.current;
  return base;
}

SourceInfo test_source() {
  SourceInfo source;
  source.job = "job-7";
  source.rank = 3;
  source.host = "node-a";
  source.pid = 4242;
  source.ppid = 4000;
  source.agent_version = "0.1.0";
  source.start_ns = kEpochAnchor - 5;
  source.role = ProcessRole::kWorker;
  source.device_source = DeviceSource::kCudaEvents;
  return source;
}

Record make(RecordKind kind, std::uint16_t cat, std::uint16_t name, std::int64_t ts,
            std::int64_t value = 0, std::uint32_t region = 0, std::uint32_t tid = 11,
            std::uint8_t flags = 0) {
  return Record{ts, value, region, tid, cat, name, kind, flags, 0};
}

ReceivedBatch finish_and_decode(BatchEncoder& encoder, std::uint64_t seq, std::int64_t sent_at,
                                std::uint64_t dropped, bool final) {
  encoder.prepare(test_time_base());
  const std::span<const std::uint8_t> frame = encoder.finish(seq, sent_at, dropped, final);
  EXPECT_LE(frame.size(), wire::kMaxFrameBytes);
  std::optional<ReceivedBatch> batch = decode_batch(frame.data(), frame.size());
  EXPECT_TRUE(batch.has_value()) << "frame failed verification";
  return batch.value_or(ReceivedBatch{});
}

TEST(BatchEncoder, RoundTripGivesBackEveryEventNameAndValue) {
  NameTable names;
  const auto compute = static_cast<std::uint16_t>(names.intern("compute"));
  const auto forward = static_cast<std::uint16_t>(names.intern("forward"));
  const auto pipeline = static_cast<std::uint16_t>(names.intern("pipeline"));
  const auto epoch = static_cast<std::uint16_t>(names.intern("epoch.start"));
  const auto loss = static_cast<std::uint16_t>(names.intern("loss"));
  BatchEncoder encoder(names, 1024);
  encoder.set_source(test_source());
  encoder.reset();
  ASSERT_TRUE(encoder.add(make(RecordKind::kBegin, compute, forward, 2000, 0, 5, 11)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kEnd, 0, 0, 4000, 0, 5, 12)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kComplete, compute, forward, kEpochAnchor + 77, 300)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kMark, pipeline, epoch, 1000, 3)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kCounter, pipeline, loss, 1002,
                               std::bit_cast<std::int64_t>(0.25), 0, 11, kRecordValueIsDouble)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kCounter, 0, 999, 1004, -17)));
  EXPECT_EQ(encoder.size(), 6u);

  const ReceivedBatch batch = finish_and_decode(encoder, 41, kEpochAnchor + 9000, 12, true);
  EXPECT_EQ(batch.protocol_version, wire::kProtocolVersion);
  EXPECT_EQ(batch.job, "job-7");
  EXPECT_EQ(batch.rank, 3);
  EXPECT_EQ(batch.host, "node-a");
  EXPECT_EQ(batch.pid, 4242);
  EXPECT_EQ(batch.ppid, 4000);
  EXPECT_EQ(batch.agent_version, "0.1.0");
  EXPECT_EQ(batch.start_ns, kEpochAnchor - 5);
  EXPECT_EQ(batch.role, 1);           // Worker
  EXPECT_EQ(batch.device_source, 2);  // CudaEvents
  EXPECT_EQ(batch.seq, 41u);
  EXPECT_EQ(batch.sent_at_ns, kEpochAnchor + 9000);
  EXPECT_EQ(batch.dropped_since_last, 12u);
  EXPECT_TRUE(batch.final);
  ASSERT_EQ(batch.events.size(), 6u);

  const auto& begin = batch.events[0];
  EXPECT_EQ(begin.kind, 0);
  EXPECT_EQ(begin.ts_ns, kEpochAnchor + 500);  // (2000 - 1000) ticks * 0.5 ns
  EXPECT_EQ(begin.cat, "compute");
  EXPECT_EQ(begin.name, "forward");
  EXPECT_EQ(begin.region_id, 5u);
  EXPECT_EQ(begin.tid, 11u);
  const auto& end = batch.events[1];
  EXPECT_EQ(end.kind, 1);
  EXPECT_EQ(end.ts_ns, kEpochAnchor + 1500);
  EXPECT_EQ(end.region_id, 5u);
  EXPECT_EQ(end.tid, 12u);
  EXPECT_EQ(end.cat, "");
  const auto& complete = batch.events[2];
  EXPECT_EQ(complete.kind, 2);
  EXPECT_EQ(complete.ts_ns, kEpochAnchor + 77);  // already epoch ns: not converted
  EXPECT_EQ(complete.dur_ns, 300);
  EXPECT_EQ(complete.value, 0);
  const auto& mark = batch.events[3];
  EXPECT_EQ(mark.kind, 3);
  EXPECT_EQ(mark.ts_ns, kEpochAnchor);
  EXPECT_EQ(mark.value, 3);
  EXPECT_EQ(mark.cat, "pipeline");
  EXPECT_EQ(mark.name, "epoch.start");
  const auto& counter = batch.events[4];
  EXPECT_EQ(counter.kind, 4);
  EXPECT_EQ(counter.flags, kRecordValueIsDouble);
  EXPECT_EQ(std::bit_cast<double>(counter.value), 0.25);
  EXPECT_EQ(counter.name, "loss");
  const auto& unknown = batch.events[5];
  EXPECT_EQ(unknown.cat, "");
  EXPECT_EQ(unknown.name, "");  // id 999 was never interned
  EXPECT_EQ(unknown.value, -17);
  // compute, forward, "", pipeline, epoch.start, loss: each once.
  EXPECT_EQ(batch.string_count, 6u);
}

TEST(BatchEncoder, EachBatchCarriesOnlyItsOwnNames) {
  NameTable names;
  const auto a = static_cast<std::uint16_t>(names.intern("a"));
  const auto b = static_cast<std::uint16_t>(names.intern("b"));
  const auto c = static_cast<std::uint16_t>(names.intern("c"));
  BatchEncoder encoder(names, 64);
  encoder.set_source(test_source());
  encoder.reset();
  ASSERT_TRUE(encoder.add(make(RecordKind::kMark, a, b, 1000)));
  const ReceivedBatch first = finish_and_decode(encoder, 0, 0, 0, false);
  EXPECT_EQ(first.string_count, 2u);
  encoder.reset();
  ASSERT_TRUE(encoder.add(make(RecordKind::kMark, c, c, 1000)));
  ASSERT_TRUE(encoder.add(make(RecordKind::kMark, c, a, 1000)));
  const ReceivedBatch second = finish_and_decode(encoder, 1, 0, 0, false);
  EXPECT_EQ(second.string_count, 2u);
  ASSERT_EQ(second.events.size(), 2u);
  EXPECT_EQ(second.events[0].cat, "c");
  EXPECT_EQ(second.events[0].name, "c");
  EXPECT_EQ(second.events[1].name, "a");
}

TEST(BatchEncoder, HeartbeatHasNoEvents) {
  NameTable names;
  BatchEncoder encoder(names, 64);
  encoder.set_source(test_source());
  encoder.reset();
  EXPECT_TRUE(encoder.empty());
  const ReceivedBatch batch = finish_and_decode(encoder, 9, kEpochAnchor, 0, false);
  EXPECT_TRUE(batch.events.empty());
  EXPECT_EQ(batch.seq, 9u);
  EXPECT_EQ(batch.job, "job-7");
}

TEST(BatchEncoder, RefusesTheEventPastBatchEvents) {
  NameTable names;
  BatchEncoder encoder(names, 64);
  encoder.set_source(test_source());
  encoder.reset();
  for (int i = 0; i < 64; ++i)
    ASSERT_TRUE(encoder.add(make(RecordKind::kMark, 0, 0, 1000, i)));
  EXPECT_FALSE(encoder.add(make(RecordKind::kMark, 0, 0, 1000, 64)));
  const ReceivedBatch batch = finish_and_decode(encoder, 0, 0, 0, false);
  ASSERT_EQ(batch.events.size(), 64u);
  EXPECT_EQ(batch.events.back().value, 63);
  encoder.reset();
  EXPECT_TRUE(encoder.add(make(RecordKind::kMark, 0, 0, 1000, 64)));
}

TEST(BatchEncoder, StaysUnderTheFrameLimitWithManyLongNames) {
  NameTable names;
  std::vector<std::uint16_t> ids;
  for (int i = 0; i < 5000; ++i) {
    std::string name(1000, 'x');
    name += std::to_string(i);
    ids.push_back(static_cast<std::uint16_t>(names.intern(name)));
    ASSERT_NE(ids.back(), 0);
  }
  BatchEncoder encoder(names, wire::kMaxEventsPerBatch);
  encoder.set_source(test_source());
  encoder.reset();
  std::size_t added = 0;
  while (added < ids.size() && encoder.add(make(RecordKind::kMark, ids[added], ids[added], 1000))) {
    ++added;
  }
  ASSERT_LT(added, ids.size()) << "5 MB of names cannot fit one 4 MiB frame";
  EXPECT_GT(added, 3000u);
  const ReceivedBatch batch = finish_and_decode(encoder, 0, 0, 0, false);
  ASSERT_EQ(batch.events.size(), added);
  EXPECT_EQ(batch.events.back().name, names.lookup(ids[added - 1]));
  // The refused record left no name behind.
  EXPECT_EQ(batch.string_count, added);
}

TEST(TimeBase, ConvertsWithTheSegmentInForceAndStaysMonotonic) {
  TimeBase base;
  base.previous = TimeSegment{0, 1000, std::uint64_t{1} << 32};  // 1 ns per tick
  base.current = TimeSegment{100, base.previous.to_ns(100), std::uint64_t{3} << 31};  // 1.5
  EXPECT_EQ(base.to_ns(0), 1000);
  EXPECT_EQ(base.to_ns(99), 1099);
  EXPECT_EQ(base.to_ns(100), 1100);
  EXPECT_EQ(base.to_ns(110), 1115);
  std::int64_t last = base.to_ns(-1000);
  for (std::int64_t t = -1000; t < 5000; ++t) {
    const std::int64_t ns = base.to_ns(t);
    ASSERT_GE(ns, last) << "at tick " << t;
    last = ns;
  }
}

TEST(TimeBase, HandlesLargeTickDistancesWithoutOverflow) {
  const TimeSegment segment{0, kEpochAnchor, std::uint64_t{1} << 30};  // 0.25 ns per tick
  constexpr std::int64_t kTicks = std::int64_t{1} << 62;
  EXPECT_EQ(segment.to_ns(kTicks), kEpochAnchor + (kTicks >> 2));
}

}  // namespace
}  // namespace stallwatch::agent
