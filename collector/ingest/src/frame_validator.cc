// SPDX-License-Identifier: MIT
#include "ingest/frame_validator.h"

#include <stallwatch/protocol.h>

#include <string>
#include <string_view>
#include <utility>

#include "stallwatch_generated.h"

namespace stallwatch::collector {
namespace {

constexpr flatbuffers::uoffset_t kMaxDepth = 16;
constexpr flatbuffers::uoffset_t kMaxTables = 1024;

FrameError make_error(FrameErrorReason reason, std::string detail) {
  return FrameError{reason, std::move(detail)};
}

std::string event_prefix(std::size_t index) {
  return "event " + std::to_string(index) + ": ";
}

bool too_long(const flatbuffers::String* str) {
  return str != nullptr && str->size() > wire::kMaxStringBytes;
}

FrameError too_long_error(const flatbuffers::String& str, std::string_view what) {
  return make_error(FrameErrorReason::kSemantic,
                    std::string(what) + " is " + std::to_string(str.size()) + " bytes, more than " +
                        std::to_string(wire::kMaxStringBytes));
}

std::optional<FrameError> check_source(const wire::Source& source) {
  if (source.job() == nullptr || source.job()->size() == 0) {
    return make_error(FrameErrorReason::kSemantic, "source.job is missing or empty");
  }
  if (too_long(source.job())) return too_long_error(*source.job(), "source.job");
  if (too_long(source.host())) return too_long_error(*source.host(), "source.host");
  if (too_long(source.agent_version())) {
    return too_long_error(*source.agent_version(), "source.agent_version");
  }
  return std::nullopt;
}

std::optional<FrameError> check_strings(const wire::Batch& batch) {
  const auto* strings = batch.strings();
  if (strings == nullptr) return std::nullopt;
  if (strings->size() > wire::kMaxStringsPerBatch) {
    return make_error(FrameErrorReason::kSemantic, std::to_string(strings->size()) +
                                                       " strings, more than " +
                                                       std::to_string(wire::kMaxStringsPerBatch));
  }
  for (flatbuffers::uoffset_t i = 0; i < strings->size(); ++i) {
    const flatbuffers::String* str = strings->Get(i);
    if (too_long(str)) return too_long_error(*str, "string " + std::to_string(i));
  }
  return std::nullopt;
}

std::optional<FrameError> check_event(const wire::Event& event, std::size_t index,
                                      std::size_t string_count, std::int64_t sent_at_ns) {
  if (event.cat() >= string_count) {
    return make_error(FrameErrorReason::kSemantic,
                      event_prefix(index) + "cat index " + std::to_string(event.cat()) +
                          " >= " + std::to_string(string_count) + " strings");
  }
  if (event.name() >= string_count) {
    return make_error(FrameErrorReason::kSemantic,
                      event_prefix(index) + "name index " + std::to_string(event.name()) +
                          " >= " + std::to_string(string_count) + " strings");
  }
  const auto kind = static_cast<std::uint8_t>(event.kind());
  if (kind > static_cast<std::uint8_t>(wire::EventKind::MAX)) {
    return make_error(FrameErrorReason::kSemantic,
                      event_prefix(index) + "unknown kind " + std::to_string(kind));
  }
  if (event.dur_ns() < 0 || event.dur_ns() > FrameValidator::kMaxDurationNs) {
    return make_error(
        FrameErrorReason::kSemantic,
        event_prefix(index) + "dur_ns " + std::to_string(event.dur_ns()) + " outside [0, 24 h]");
  }
  // sent_at_ns is within [0, kMaxSentAtNs], so neither bound overflows.
  if (event.ts_ns() < sent_at_ns - FrameValidator::kMaxEventAgeNs ||
      event.ts_ns() > sent_at_ns + FrameValidator::kMaxEventLeadNs) {
    return make_error(FrameErrorReason::kSemantic,
                      event_prefix(index) + "ts_ns " + std::to_string(event.ts_ns()) +
                          " outside [sent_at - 24 h, sent_at + 60 s] of sent_at_ns " +
                          std::to_string(sent_at_ns));
  }
  return std::nullopt;
}

std::optional<FrameError> check_semantics(const wire::Batch& batch) {
  if (auto error = check_source(*batch.source())) return error;
  const std::int64_t sent_at_ns = batch.sent_at_ns();
  if (sent_at_ns < 0 || sent_at_ns > FrameValidator::kMaxSentAtNs) {
    return make_error(FrameErrorReason::kSemantic,
                      "sent_at_ns " + std::to_string(sent_at_ns) + " out of range");
  }
  if (auto error = check_strings(batch)) return error;
  const auto* events = batch.events();
  if (events == nullptr) return std::nullopt;
  if (events->size() > wire::kMaxEventsPerBatch) {
    return make_error(FrameErrorReason::kSemantic, std::to_string(events->size()) +
                                                       " events, more than " +
                                                       std::to_string(wire::kMaxEventsPerBatch));
  }
  return std::nullopt;
}

std::optional<FrameError> check_events(const wire::Batch& batch) {
  const auto* events = batch.events();
  if (events == nullptr) return std::nullopt;
  const std::size_t string_count = batch.strings() == nullptr ? 0 : batch.strings()->size();
  for (flatbuffers::uoffset_t i = 0; i < events->size(); ++i) {
    if (auto error = check_event(*events->Get(i), i, string_count, batch.sent_at_ns())) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace

static_assert(FrameValidator::EventLimits::kMaxKind ==
              static_cast<std::uint64_t>(wire::EventKind::MAX));

std::optional<FrameError> FrameValidator::validate(std::span<const std::uint8_t> frame) {
  if (auto error = validate_except_events(frame)) return error;
  const wire::Batch& batch = *wire::GetBatch(frame.data());
  if (const auto* events = batch.events()) {
    const EventLimits limits(batch.strings() == nullptr ? 0 : batch.strings()->size(),
                             batch.sent_at_ns());
    bool bad = false;
    for (const wire::Event* event : *events)
      bad |= limits.bad(*event);
    if (bad) return check_events(batch);
  }
  return std::nullopt;
}

std::optional<FrameError> FrameValidator::first_bad_event(std::span<const std::uint8_t> frame) {
  return check_events(*wire::GetBatch(frame.data()));
}

std::optional<FrameError> FrameValidator::validate_except_events(
    std::span<const std::uint8_t> frame) {
  if (frame.size() > wire::kMaxFrameBytes) {
    return make_error(FrameErrorReason::kTooLarge, "frame of " + std::to_string(frame.size()) +
                                                       " bytes, more than " +
                                                       std::to_string(wire::kMaxFrameBytes));
  }
  if (frame.size() < kMinFrameBytes) {
    return make_error(FrameErrorReason::kBadIdentifier, "frame of " + std::to_string(frame.size()) +
                                                            " bytes, shorter than " +
                                                            std::to_string(kMinFrameBytes));
  }
  if (!wire::BatchBufferHasIdentifier(frame.data())) {
    return make_error(FrameErrorReason::kBadIdentifier, "file identifier is not \"SWTC\"");
  }
  if (reinterpret_cast<std::uintptr_t>(frame.data()) % kFrameAlignment != 0) {
    return make_error(FrameErrorReason::kMalformed, "frame buffer is not 8-byte aligned");
  }

  flatbuffers::Verifier::Options options;
  options.max_depth = kMaxDepth;
  options.max_tables = kMaxTables;
  {
    flatbuffers::Verifier header_verifier(frame.data(), frame.size(), options);
    if (!header_verifier.VerifyBuffer<wire::BatchHeader>(nullptr)) {
      return make_error(FrameErrorReason::kMalformed, "batch header does not verify");
    }
  }
  const std::uint32_t version =
      flatbuffers::GetRoot<wire::BatchHeader>(frame.data())->protocol_version();
  if (wire::protocol_major(version) != wire::kProtocolMajor) {
    return make_error(FrameErrorReason::kVersion,
                      "protocol version " + std::to_string(wire::protocol_major(version)) + "." +
                          std::to_string(wire::protocol_minor(version)) +
                          ", this collector accepts " + std::to_string(wire::kProtocolMajor) +
                          ".x");
  }

  flatbuffers::Verifier verifier(frame.data(), frame.size(), options);
  if (!wire::VerifyBatchBuffer(verifier)) {
    return make_error(FrameErrorReason::kMalformed, "batch does not verify");
  }
  // The verifier checks a struct vector's length field (4-byte aligned), not
  // its elements' 8-byte alignment; reading a misaligned Event is undefined.
  const wire::Batch& batch = *wire::GetBatch(frame.data());
  if (const auto* events = batch.events();
      events != nullptr && events->size() > 0 &&
      reinterpret_cast<std::uintptr_t>(events->Data()) % alignof(wire::Event) != 0) {
    return make_error(FrameErrorReason::kMalformed,
                      "events vector at byte " + std::to_string(events->Data() - frame.data()) +
                          " is not " + std::to_string(alignof(wire::Event)) + "-byte aligned");
  }
  return check_semantics(batch);
}

}  // namespace stallwatch::collector
