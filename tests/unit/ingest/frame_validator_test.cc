// SPDX-License-Identifier: MIT
#include "ingest/frame_validator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <random>
#include <string>

#include "ingest/batch_decoder.h"
#include "wire_frames.h"

namespace stallwatch::collector {
namespace {

using testing::build_frame;
using testing::build_header_only_frame;
using testing::kSentAtNs;
using testing::RawBatch;

constexpr std::int64_t kHourNs = 3600LL * 1'000'000'000;

std::optional<FrameError> validate(const std::vector<std::uint8_t>& frame) {
  return FrameValidator::validate(frame);
}

FrameErrorReason reason_of(const std::vector<std::uint8_t>& frame) {
  auto error = validate(frame);
  EXPECT_TRUE(error.has_value()) << "frame was accepted";
  return error ? error->reason : FrameErrorReason::kMalformed;
}

wire::Event complete_at(std::int64_t ts_ns, std::int64_t dur_ns = 1000) {
  return wire::Event(ts_ns, dur_ns, 0, 0, 1, 0, 1, wire::EventKind::Complete, 0);
}

TEST(FrameValidatorTest, AcceptsValidFrame) {
  const auto error = validate(build_frame(RawBatch{}));
  EXPECT_FALSE(error.has_value()) << error->detail;
}

TEST(FrameValidatorTest, AcceptsEmptyBatchAndOtherMinorVersion) {
  RawBatch raw;
  raw.strings.clear();
  raw.events.clear();
  raw.protocol_version = wire::kProtocolMajor << 16 | 7;
  EXPECT_FALSE(validate(build_frame(raw)).has_value());
}

TEST(FrameValidatorTest, RejectsOversizedFrame) {
  std::vector<std::uint8_t> frame = build_frame(RawBatch{});
  frame.resize(wire::kMaxFrameBytes + 1);
  const auto error = validate(frame);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->reason, FrameErrorReason::kTooLarge);
  EXPECT_NE(error->detail.find("4194305"), std::string::npos) << error->detail;
}

TEST(FrameValidatorTest, RejectsRandomBytesAsBadIdentifier) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::uint8_t> frame(rng() % 4096);
    for (auto& byte : frame)
      byte = static_cast<std::uint8_t>(rng());
    EXPECT_EQ(reason_of(frame), FrameErrorReason::kBadIdentifier) << "size " << frame.size();
  }
}

TEST(FrameValidatorTest, RejectsTooShortFrameAsBadIdentifier) {
  const auto valid = build_frame(RawBatch{});
  for (std::size_t size = 0; size < FrameValidator::kMinFrameBytes; ++size) {
    EXPECT_EQ(reason_of({valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(size)}),
              FrameErrorReason::kBadIdentifier);
  }
}

TEST(FrameValidatorTest, RejectsWrongIdentifier) {
  auto frame = build_frame(RawBatch{});
  frame[4] = 'X';
  EXPECT_EQ(reason_of(frame), FrameErrorReason::kBadIdentifier);
}

TEST(FrameValidatorTest, RejectsTruncatedFrameAsMalformed) {
  const auto valid = build_frame(RawBatch{});
  for (std::size_t size = FrameValidator::kMinFrameBytes; size <= valid.size() / 2; size += 3) {
    EXPECT_EQ(reason_of({valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(size)}),
              FrameErrorReason::kMalformed)
        << "truncated to " << size << " of " << valid.size();
  }
}

TEST(FrameValidatorTest, RejectsCorruptOffsetsWithoutCrashing) {
  const auto valid = build_frame(RawBatch{});
  std::mt19937 rng(99);
  int rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    auto frame = valid;
    for (int flips = 0; flips < 4; ++flips) {
      const std::size_t at = 8 + rng() % (frame.size() - 8);  // keep the identifier
      frame[at] = static_cast<std::uint8_t>(rng());
    }
    if (validate(frame).has_value()) ++rejected;
  }
  EXPECT_GT(rejected, 0);
}

TEST(FrameValidatorTest, RejectsOtherMajorVersion) {
  RawBatch raw;
  raw.protocol_version = (wire::kProtocolMajor + 1) << 16;
  const auto error = validate(build_frame(raw));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->reason, FrameErrorReason::kVersion);
  EXPECT_NE(error->detail.find("2.0"), std::string::npos) << error->detail;

  EXPECT_EQ(reason_of(build_header_only_frame(7u << 16)), FrameErrorReason::kVersion);
  EXPECT_EQ(reason_of(build_header_only_frame(0)), FrameErrorReason::kVersion);
}

TEST(FrameValidatorTest, RejectsMissingSourceAsMalformed) {
  RawBatch raw;
  raw.with_source = false;
  EXPECT_EQ(reason_of(build_frame(raw)), FrameErrorReason::kMalformed);
}

struct SemanticCase {
  std::string name;
  RawBatch raw;
  std::string detail;  // expected substring of FrameError::detail
};

std::vector<SemanticCase> semantic_cases() {
  std::vector<SemanticCase> cases;
  auto add = [&](std::string name, auto&& mutate, std::string detail) {
    RawBatch raw;
    mutate(raw);
    cases.push_back({std::move(name), std::move(raw), std::move(detail)});
  };
  add(
      "empty job", [](RawBatch& r) { r.job.clear(); }, "source.job");
  add(
      "long host", [](RawBatch& r) { r.host.assign(wire::kMaxStringBytes + 1, 'h'); },
      "source.host is 1025 bytes");
  add(
      "long string", [](RawBatch& r) { r.strings[2].assign(wire::kMaxStringBytes + 1, 's'); },
      "string 2 is 1025 bytes");
  add(
      "too many strings", [](RawBatch& r) { r.strings.assign(wire::kMaxStringsPerBatch + 1, "x"); },
      "65536 strings");
  add(
      "too many events",
      [](RawBatch& r) { r.events.assign(wire::kMaxEventsPerBatch + 1, complete_at(kSentAtNs)); },
      "65537 events");
  add(
      "negative sent_at", [](RawBatch& r) { r.sent_at_ns = -1; }, "sent_at_ns -1");
  add(
      "cat index",
      [](RawBatch& r) {
        r.events.assign(18, complete_at(kSentAtNs));
        r.events[17] = wire::Event(kSentAtNs, 0, 0, 0, 1, 4, 0, wire::EventKind::Mark, 0);
      },
      "event 17: cat index 4 >= 4 strings");
  add(
      "name index",
      [](RawBatch& r) {
        r.strings.resize(12, "n");
        r.events.assign(18, complete_at(kSentAtNs));
        r.events[17] = wire::Event(kSentAtNs, 0, 0, 0, 1, 0, 40, wire::EventKind::Mark, 0);
      },
      "event 17: name index 40 >= 12 strings");
  add(
      "no strings", [](RawBatch& r) { r.strings.clear(); }, "event 0: cat index 0 >= 0 strings");
  add(
      "kind",
      [](RawBatch& r) {
        r.events = {wire::Event(kSentAtNs, 0, 0, 0, 1, 0, 0, static_cast<wire::EventKind>(5), 0)};
      },
      "event 0: unknown kind 5");
  add(
      "negative dur", [](RawBatch& r) { r.events = {complete_at(kSentAtNs, -1)}; },
      "event 0: dur_ns -1");
  add(
      "dur over 24 h",
      [](RawBatch& r) { r.events = {complete_at(kSentAtNs - kHourNs, 24 * kHourNs + 1)}; },
      "dur_ns 86400000000001");
  add(
      "ts too old",
      [](RawBatch& r) {
        r.events = {complete_at(kSentAtNs), complete_at(kSentAtNs - 24 * kHourNs - 1)};
      },
      "event 1: ts_ns");
  add(
      "ts in the future", [](RawBatch& r) { r.events = {complete_at(kSentAtNs + 60'000'000'001)}; },
      "event 0: ts_ns");
  return cases;
}

TEST(FrameValidatorTest, RejectsEverySemanticRule) {
  for (const SemanticCase& c : semantic_cases()) {
    const auto error = validate(build_frame(c.raw));
    ASSERT_TRUE(error.has_value()) << c.name;
    EXPECT_EQ(error->reason, FrameErrorReason::kSemantic) << c.name << ": " << error->detail;
    EXPECT_NE(error->detail.find(c.detail), std::string::npos)
        << c.name << ": got \"" << error->detail << "\", want \"" << c.detail << "\"";
  }
}

// BatchDecoder checks the per-event rules while it copies the events
// (FrameValidator::EventLimits): it must reject exactly what validate()
// rejects, with the same words, and count it once.
TEST(FrameValidatorTest, DecoderRejectsEverySemanticRuleLikeTheValidator) {
  NameTable names;
  std::mutex names_mutex;
  BatchDecoder decoder(names, &names_mutex);
  DecodedBatch batch;
  std::uint64_t rejected = 0;
  for (const SemanticCase& c : semantic_cases()) {
    const std::vector<std::uint8_t> frame = build_frame(c.raw);
    const auto expected = validate(frame);
    const auto got = decoder.decode(frame, batch);
    ASSERT_TRUE(got.has_value()) << c.name;
    ++rejected;
    EXPECT_EQ(got->reason, expected->reason) << c.name;
    EXPECT_EQ(got->detail, expected->detail) << c.name;
    EXPECT_EQ(decoder.stats().invalid(FrameErrorReason::kSemantic), rejected) << c.name;
  }
  EXPECT_EQ(decoder.stats().events_received, 0u);
}

TEST(FrameValidatorTest, EventLimitsAgreeWithTheRulesAtEveryEdge) {
  const FrameValidator::EventLimits limits(4, kSentAtNs);
  const auto bad = [&](const wire::Event& e) { return limits.bad(e); };
  using K = wire::EventKind;
  EXPECT_FALSE(bad(wire::Event(kSentAtNs, 0, 0, 0, 1, 3, 3, K::Counter, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs, 0, 0, 0, 1, 4, 0, K::Mark, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs, 0, 0, 0, 1, 0, 4, K::Mark, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs, 0, 0, 0, 1, 0, 0, static_cast<K>(5), 0)));
  EXPECT_FALSE(
      bad(wire::Event(kSentAtNs - 24 * kHourNs, 24 * kHourNs, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs - 24 * kHourNs - 1, 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs, 24 * kHourNs + 1, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs, -1, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_FALSE(bad(wire::Event(kSentAtNs + 60'000'000'000, 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(bad(wire::Event(kSentAtNs + 60'000'000'001, 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  // sent_at near 0: the low bound is negative and must not wrap into "valid".
  const FrameValidator::EventLimits early(1, 1000);
  EXPECT_FALSE(early.bad(wire::Event(1000 - 24 * kHourNs, 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(early.bad(wire::Event(999 - 24 * kHourNs, 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(early.bad(
      wire::Event(std::numeric_limits<std::int64_t>::min(), 0, 0, 0, 1, 0, 0, K::Complete, 0)));
  EXPECT_TRUE(early.bad(
      wire::Event(std::numeric_limits<std::int64_t>::max(), 0, 0, 0, 1, 0, 0, K::Complete, 0)));
}

TEST(FrameValidatorTest, AcceptsValuesOnTheLimits) {
  RawBatch raw;
  raw.strings = {std::string(wire::kMaxStringBytes, 'a'), "b"};
  raw.events = {
      complete_at(kSentAtNs - 24 * kHourNs, 24 * kHourNs),
      complete_at(kSentAtNs + 60'000'000'000, 0),
      wire::Event(kSentAtNs, 0, 0, 0, 1, 1, 1, wire::EventKind::Counter, 0),
  };
  raw.events.resize(wire::kMaxEventsPerBatch, complete_at(kSentAtNs));
  const auto error = validate(build_frame(raw));
  EXPECT_FALSE(error.has_value()) << error->detail;
}

TEST(FrameValidatorTest, NamesEveryReason) {
  EXPECT_EQ(frame_error_reason_name(FrameErrorReason::kTooLarge), "too_large");
  EXPECT_EQ(frame_error_reason_name(FrameErrorReason::kBadIdentifier), "bad_identifier");
  EXPECT_EQ(frame_error_reason_name(FrameErrorReason::kMalformed), "malformed");
  EXPECT_EQ(frame_error_reason_name(FrameErrorReason::kVersion), "version");
  EXPECT_EQ(frame_error_reason_name(FrameErrorReason::kSemantic), "semantic");
}

// Frames the validator fuzzer found (collector/ingest/fuzz/validator_regressions):
// an events vector whose 4-byte length is aligned but whose 8-byte Event
// elements are not is rejected as malformed, saying where, instead of being
// read (undefined behaviour).
TEST(FrameValidatorTest, RejectsAnEventsVectorThatIsNotEightByteAligned) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STALLWATCH_VALIDATOR_REGRESSIONS)) {
    if (entry.path().filename().string().rfind("misaligned-events", 0) != 0) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> frame{std::istreambuf_iterator<char>(in), {}};
    const auto error = validate(frame);
    ASSERT_TRUE(error.has_value()) << entry.path();
    EXPECT_EQ(error->reason, FrameErrorReason::kMalformed) << entry.path();
    EXPECT_NE(error->detail.find("is not 8-byte aligned"), std::string::npos) << error->detail;
    ++seen;
  }
  EXPECT_EQ(seen, 3);
}

}  // namespace
}  // namespace stallwatch::collector
