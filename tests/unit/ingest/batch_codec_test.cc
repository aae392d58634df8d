// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <mutex>

#include "engine/engine.h"
#include "ingest/batch_decoder.h"
#include "ingest/batch_encoder.h"
#include "wire_frames.h"

namespace stallwatch::collector {
namespace {

using testing::kSentAtNs;

DecodedBatch sample_batch(NameTable& names) {
  DecodedBatch batch;
  batch.source = {"job-7",
                  3,
                  "node-12",
                  4242,
                  4200,
                  "0.1.0",
                  kSentAtNs - 5'000'000'000,
                  ProcessRole::kWorker,
                  DeviceSource::kCupti};
  batch.seq = 99;
  batch.sent_at_ns = kSentAtNs;
  batch.dropped_since_last = 17;
  batch.final = true;
  const NameId compute = names.intern("compute");
  const NameId forward = names.intern("forward");
  const NameId pipeline = names.intern("pipeline");
  const NameId loss = names.intern("loss");
  batch.events = {
      {kSentAtNs - 3'000'000, 2'000'000, 0, 0, 11, compute, forward, EventKind::kComplete, 0},
      {kSentAtNs - 1'000'000, 0, 0, 5, 12, compute, forward, EventKind::kBegin, 0},
      {kSentAtNs - 500'000, 0, 0, 5, 12, compute, forward, EventKind::kEnd, 0},
      {kSentAtNs, 0, 3, 0, 11, pipeline, names.intern("epoch.start"), EventKind::kMark, 0},
      {kSentAtNs, 0, std::bit_cast<std::int64_t>(0.125), 0, 11, compute, loss, EventKind::kCounter,
       kEventValueIsDouble},
  };
  return batch;
}

void expect_same_events(const DecodedBatch& a, const DecodedBatch& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.events[i].ts_ns, b.events[i].ts_ns);
    EXPECT_EQ(a.events[i].dur_ns, b.events[i].dur_ns);
    EXPECT_EQ(a.events[i].value, b.events[i].value);
    EXPECT_EQ(a.events[i].region_id, b.events[i].region_id);
    EXPECT_EQ(a.events[i].tid, b.events[i].tid);
    EXPECT_EQ(a.events[i].cat, b.events[i].cat);
    EXPECT_EQ(a.events[i].name, b.events[i].name);
    EXPECT_EQ(a.events[i].kind, b.events[i].kind);
    EXPECT_EQ(a.events[i].flags, b.events[i].flags);
  }
}

TEST(BatchCodecTest, RoundTripsEveryField) {
  NameTable names;
  const DecodedBatch sent = sample_batch(names);
  BatchEncoder encoder;
  const EncodedFrame frame = encoder.encode(sent, names);
  ASSERT_TRUE(frame.ok()) << frame.error;

  // The receiving side has its own table: names travel as strings.
  NameTable receiver_names;
  BatchDecoder decoder(receiver_names);
  DecodedBatch got;
  const auto error = decoder.decode(frame.bytes, got);
  ASSERT_FALSE(error.has_value()) << error->detail;

  EXPECT_EQ(got.protocol_version, wire::kProtocolVersion);
  EXPECT_EQ(got.source.job, "job-7");
  EXPECT_EQ(got.source.rank, 3);
  EXPECT_EQ(got.source.host, "node-12");
  EXPECT_EQ(got.source.pid, 4242);
  EXPECT_EQ(got.source.ppid, 4200);
  EXPECT_EQ(got.source.agent_version, "0.1.0");
  EXPECT_EQ(got.source.start_ns, kSentAtNs - 5'000'000'000);
  EXPECT_EQ(got.source.role, ProcessRole::kWorker);
  EXPECT_EQ(got.source.device_source, DeviceSource::kCupti);
  EXPECT_EQ(got.seq, 99u);
  EXPECT_EQ(got.sent_at_ns, kSentAtNs);
  EXPECT_EQ(got.dropped_since_last, 17u);
  EXPECT_TRUE(got.final);
  ASSERT_EQ(got.events.size(), sent.events.size());
  for (std::size_t i = 0; i < sent.events.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(receiver_names.str(got.events[i].cat), names.str(sent.events[i].cat));
    EXPECT_EQ(receiver_names.str(got.events[i].name), names.str(sent.events[i].name));
    EXPECT_EQ(got.events[i].ts_ns, sent.events[i].ts_ns);
    EXPECT_EQ(got.events[i].dur_ns, sent.events[i].dur_ns);
    EXPECT_EQ(got.events[i].kind, sent.events[i].kind);
    EXPECT_EQ(got.events[i].region_id, sent.events[i].region_id);
    EXPECT_EQ(got.events[i].tid, sent.events[i].tid);
  }
  EXPECT_EQ(std::bit_cast<double>(got.events[4].value), 0.125);
  EXPECT_EQ(got.events[4].flags, kEventValueIsDouble);

  EXPECT_EQ(decoder.stats().frames_received, 1u);
  EXPECT_EQ(decoder.stats().bytes_received, frame.bytes.size());
  EXPECT_EQ(decoder.stats().events_received, 5u);
  EXPECT_EQ(decoder.stats().invalid_total(), 0u);
}

TEST(BatchCodecTest, SameTableDecodesToIdenticalBatch) {
  NameTable names;
  const DecodedBatch sent = sample_batch(names);
  BatchEncoder encoder;
  BatchDecoder decoder(names);
  DecodedBatch got;
  ASSERT_FALSE(decoder.decode(encoder.encode(sent, names).bytes, got).has_value());
  expect_same_events(sent, got);
}

TEST(BatchCodecTest, FrameCarriesOnlyTheNamesItsEventsUse) {
  NameTable names;
  for (int i = 0; i < 1000; ++i)
    names.intern("unused-" + std::to_string(i));
  DecodedBatch batch = sample_batch(names);
  BatchEncoder encoder;
  const EncodedFrame small = encoder.encode(batch, names);
  ASSERT_TRUE(small.ok());
  EXPECT_LT(small.bytes.size(), 600u);
  const auto* wire_batch = wire::GetBatch(small.bytes.data());
  EXPECT_EQ(wire_batch->strings()->size(), 5u);  // compute forward pipeline epoch.start loss
}

TEST(BatchCodecTest, DecodesUnalignedFrames) {
  NameTable names;
  const DecodedBatch sent = sample_batch(names);
  BatchEncoder encoder;
  const EncodedFrame frame = encoder.encode(sent, names);
  std::vector<std::uint8_t> storage(frame.bytes.size() + 1);
  std::memcpy(storage.data() + 1, frame.bytes.data(), frame.bytes.size());
  BatchDecoder decoder(names);
  DecodedBatch got;
  const auto error = decoder.decode({storage.data() + 1, frame.bytes.size()}, got);
  ASSERT_FALSE(error.has_value()) << error->detail;
  expect_same_events(sent, got);
}

TEST(BatchCodecTest, ReusesTheDecodedBatch) {
  NameTable names;
  DecodedBatch big = sample_batch(names);
  big.events.resize(4096, big.events[0]);
  BatchEncoder encoder;
  BatchDecoder decoder(names);
  DecodedBatch got;
  ASSERT_FALSE(decoder.decode(encoder.encode(big, names).bytes, got).has_value());
  const Event* storage = got.events.data();

  const DecodedBatch small = sample_batch(names);
  ASSERT_FALSE(decoder.decode(encoder.encode(small, names).bytes, got).has_value());
  EXPECT_EQ(got.events.size(), small.events.size());
  EXPECT_EQ(got.events.data(), storage);
  EXPECT_EQ(decoder.stats().events_received, 4096u + small.events.size());
}

TEST(BatchCodecTest, CountsInvalidFramesByReason) {
  NameTable names;
  BatchDecoder decoder(names);
  DecodedBatch got;
  const std::vector<std::uint8_t> garbage(100, 0xab);
  testing::RawBatch future_version;
  future_version.protocol_version = 9u << 16;
  testing::RawBatch bad_index;
  bad_index.strings.resize(1);

  EXPECT_EQ(decoder.decode(garbage, got)->reason, FrameErrorReason::kBadIdentifier);
  EXPECT_EQ(decoder.decode(testing::build_frame(future_version), got)->reason,
            FrameErrorReason::kVersion);
  EXPECT_EQ(decoder.decode(testing::build_frame(bad_index), got)->reason,
            FrameErrorReason::kSemantic);
  EXPECT_EQ(decoder.decode(testing::build_frame(bad_index), got)->reason,
            FrameErrorReason::kSemantic);
  EXPECT_FALSE(decoder.decode(testing::build_frame({}), got).has_value());

  const IngestStats& stats = decoder.stats();
  EXPECT_EQ(stats.frames_received, 5u);
  EXPECT_EQ(stats.events_received, 2u);
  EXPECT_EQ(stats.invalid(FrameErrorReason::kBadIdentifier), 1u);
  EXPECT_EQ(stats.invalid(FrameErrorReason::kVersion), 1u);
  EXPECT_EQ(stats.invalid(FrameErrorReason::kSemantic), 2u);
  EXPECT_EQ(stats.invalid(FrameErrorReason::kMalformed), 0u);
  EXPECT_EQ(stats.invalid_total(), 4u);
}

// decode_header() + prepare_events() (decode_prepared() in two steps) give
// the header decode() gives and name a bad event as it does, and count each
// frame once, valid or not.
TEST(BatchCodecTest, HeaderThenEventsMatchesDecode) {
  NameTable names;
  const DecodedBatch sent = sample_batch(names);
  BatchEncoder encoder;
  const EncodedFrame frame = encoder.encode(sent, names);
  ASSERT_TRUE(frame.ok()) << frame.error;
  Engine engine(EngineConfig{}, names);
  BatchPreparer preparer = engine.make_preparer(nullptr);
  PreparedBatch prepared;

  BatchDecoder whole(names);
  DecodedBatch want;
  ASSERT_FALSE(whole.decode(frame.bytes, want));

  BatchDecoder parts(names);
  DecodedBatch got;
  got.events.push_back(Event{});  // decode_header leaves the events alone
  ASSERT_FALSE(parts.decode_header(frame.bytes, got));
  EXPECT_EQ(got.events.size(), 1u);
  EXPECT_EQ(got.source, want.source);
  EXPECT_EQ(got.seq, want.seq);
  EXPECT_EQ(got.sent_at_ns, want.sent_at_ns);
  EXPECT_EQ(got.dropped_since_last, want.dropped_since_last);
  EXPECT_EQ(got.final, want.final);
  EXPECT_EQ(parts.stats().frames_received, 1u);
  EXPECT_EQ(parts.stats().events_received, 0u);  // not before the events are read
  EXPECT_FALSE(parts.prepare_events(preparer, got, prepared));
  EXPECT_EQ(prepared.event_count(), want.events.size());
  EXPECT_EQ(parts.stats().events_received, want.events.size());

  // An event breaking a rule: prepare_events() names it as decode() does.
  testing::RawBatch bad_index;
  bad_index.strings.resize(1);
  const std::vector<std::uint8_t> bad_frame = testing::build_frame(bad_index);
  const auto whole_error = whole.decode(bad_frame, want);
  ASSERT_TRUE(whole_error);
  ASSERT_FALSE(parts.decode_header(bad_frame, got));
  const auto parts_error = parts.prepare_events(preparer, got, prepared);
  ASSERT_TRUE(parts_error);
  EXPECT_EQ(parts_error->reason, whole_error->reason);
  EXPECT_EQ(parts_error->detail, whole_error->detail);

  // A frame refused by decode_header() is counted there, once.
  const std::vector<std::uint8_t> garbage(100, 0xab);
  EXPECT_EQ(parts.decode_header(garbage, got)->reason, FrameErrorReason::kBadIdentifier);
  EXPECT_EQ(parts.stats().frames_received, 3u);
  EXPECT_EQ(parts.stats().invalid_total(), 2u);
  EXPECT_EQ(parts.stats().events_received, sent.events.size());
}

TEST(BatchCodecTest, NamesOverflowingTheTableDecodeAsOverflow) {
  NameTable sender_names;
  const DecodedBatch sent = sample_batch(sender_names);
  NameTable small_table(4);  // "", "<overflow>", and room for two names
  BatchEncoder encoder;
  BatchDecoder decoder(small_table);
  DecodedBatch got;
  ASSERT_FALSE(decoder.decode(encoder.encode(sent, sender_names).bytes, got).has_value());
  EXPECT_EQ(small_table.str(got.events[0].cat), "compute");
  EXPECT_EQ(small_table.str(got.events[0].name), "forward");
  EXPECT_EQ(got.events[3].cat, NameTable::kOverflow);
  EXPECT_GT(small_table.overflowed(), 0u);
}

// sample_batch() encoded with a table of its own.
std::vector<std::uint8_t> sample_frame() {
  NameTable sender_names;
  BatchEncoder encoder;
  const auto bytes = encoder.encode(sample_batch(sender_names), sender_names).bytes;
  return {bytes.begin(), bytes.end()};
}

// With the table's mutex, decode() runs outside it: a name is interned once
// under the mutex and served from the decoder's cache after that.
TEST(BatchCodecTest, DecoderWithTheTablesMutexInternsEachNameOnce) {
  const std::vector<std::uint8_t> frame = sample_frame();
  NameTable names;
  std::mutex names_mutex;
  BatchDecoder decoder(names, &names_mutex);
  DecodedBatch first;
  DecodedBatch second;
  ASSERT_FALSE(decoder.decode(frame, first).has_value());
  const std::size_t interned = names.size();
  ASSERT_FALSE(decoder.decode(frame, second).has_value());
  EXPECT_EQ(names.size(), interned);
  expect_same_events(first, second);
  EXPECT_EQ(names.str(first.events[0].cat), "compute");
  EXPECT_EQ(names.str(first.events[3].name), "epoch.start");

  // Another decoder sharing the table gets the same ids; the mutex is free
  // between calls.
  BatchDecoder other(names, &names_mutex);
  DecodedBatch third;
  ASSERT_FALSE(other.decode(frame, third).has_value());
  expect_same_events(first, third);
  EXPECT_TRUE(names_mutex.try_lock());
  names_mutex.unlock();
}

TEST(BatchCodecTest, CachedDecoderStillCountsOverflowingNames) {
  const std::vector<std::uint8_t> frame = sample_frame();
  NameTable small_table(4);  // "", "<overflow>", and room for two names
  std::mutex names_mutex;
  BatchDecoder decoder(small_table, &names_mutex);
  DecodedBatch got;
  ASSERT_FALSE(decoder.decode(frame, got).has_value());
  const std::uint64_t overflowed = small_table.overflowed();
  EXPECT_GT(overflowed, 0u);
  EXPECT_EQ(got.events[3].cat, NameTable::kOverflow);
  // Not cached: every frame with those names counts them again.
  ASSERT_FALSE(decoder.decode(frame, got).has_value());
  EXPECT_EQ(small_table.overflowed(), 2 * overflowed);
}

TEST(BatchEncoderTest, RefusesBatchesPastTheWireLimits) {
  NameTable names;
  BatchEncoder encoder;

  DecodedBatch too_many_events = sample_batch(names);
  too_many_events.events.resize(wire::kMaxEventsPerBatch + 1, too_many_events.events[0]);
  EncodedFrame frame = encoder.encode(too_many_events, names);
  EXPECT_FALSE(frame.ok());
  EXPECT_TRUE(frame.bytes.empty());
  EXPECT_NE(frame.error.find("65537 events"), std::string::npos) << frame.error;

  DecodedBatch long_name = sample_batch(names);
  long_name.events[0].name = names.intern(std::string(wire::kMaxStringBytes + 1, 'x'));
  frame = encoder.encode(long_name, names);
  EXPECT_FALSE(frame.ok());
  EXPECT_NE(frame.error.find("1025 bytes"), std::string::npos) << frame.error;

  DecodedBatch too_many_names = sample_batch(names);
  too_many_names.events.clear();
  for (std::size_t i = 0; i < wire::kMaxStringsPerBatch / 2 + 1; ++i) {
    const NameId a = names.intern("a" + std::to_string(i));
    const NameId b = names.intern("b" + std::to_string(i));
    too_many_names.events.push_back({kSentAtNs, 0, 0, 0, 1, a, b, EventKind::kMark, 0});
  }
  frame = encoder.encode(too_many_names, names);
  EXPECT_FALSE(frame.ok());
  EXPECT_NE(frame.error.find("distinct names"), std::string::npos) << frame.error;

  // A refused batch leaves the encoder usable.
  frame = encoder.encode(sample_batch(names), names);
  EXPECT_TRUE(frame.ok()) << frame.error;
}

}  // namespace
}  // namespace stallwatch::collector
