// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "ingest/frame_error.h"

namespace stallwatch::collector {

// FrameValidator judges one untrusted frame from the ingest socket. It is the
// only code that looks at raw wire bytes before they are trusted; BatchDecoder
// runs it on every frame and decodes only what it accepts.
//
// Checks, in order, each failure reported under one FrameErrorReason:
//   1. size: at most wire::kMaxFrameBytes (too_large), at least a FlatBuffers
//      root offset plus file identifier (bad_identifier);
//   2. file identifier "SWTC" (bad_identifier);
//   3. verified as BatchHeader (field 0 only), so another major protocol
//      version is recognised even if its layout changed (version); a header
//      that does not verify is malformed;
//   4. full FlatBuffers verification as Batch, with bounded depth and table
//      count (malformed);
//   5. protocol rules (semantic): source.job present, string counts and
//      lengths within protocol.h limits, sent_at_ns in range, at most
//      kMaxEventsPerBatch events, and for every event: cat/name index within
//      `strings`, a known kind, 0 <= dur_ns <= 24 h, and
//      sent_at_ns - 24 h <= ts_ns <= sent_at_ns + 60 s.
//
// Stateless and thread-safe. Never throws on any input; allocates only to
// describe a rejection. Does not decode, intern names or count anything.
// Precondition: frame.data() is 8-byte aligned, since FlatBuffers reads
// scalars in place (BatchDecoder copies frames that are not); an unaligned
// frame is rejected as malformed rather than read.
class FrameValidator {
 public:
  static constexpr std::size_t kMinFrameBytes = 8;  // root offset + file identifier
  static constexpr std::size_t kFrameAlignment = 8;
  static constexpr std::int64_t kMaxDurationNs = 24LL * 3600 * 1'000'000'000;
  static constexpr std::int64_t kMaxEventAgeNs = 24LL * 3600 * 1'000'000'000;  // before sent_at
  static constexpr std::int64_t kMaxEventLeadNs = 60LL * 1'000'000'000;        // after sent_at
  // sent_at_ns must lie in [0, kMaxSentAtNs], so that every accepted event
  // end (ts + dur) fits in an int64.
  static constexpr std::int64_t kMaxSentAtNs =
      std::numeric_limits<std::int64_t>::max() - 2 * kMaxDurationNs;

  // Returns nullopt when `frame` is a valid Batch of this collector's major
  // protocol version, else the first problem found.
  static std::optional<FrameError> validate(std::span<const std::uint8_t> frame);

  // validate() in two parts, for a caller that reads every event anyway
  // (BatchDecoder): everything but the per-event rules, then, once
  // EventLimits found a bad event, which one and why. validate() is
  // validate_except_events() + EventLimits over every event.
  static std::optional<FrameError> validate_except_events(std::span<const std::uint8_t> frame);
  // Precondition: validate_except_events(frame) passed. Nullopt if every
  // event keeps the rules.
  static std::optional<FrameError> first_bad_event(std::span<const std::uint8_t> frame);

  // The per-event rules of step 5 as one unsigned comparison each, so that a
  // loop over a batch's events runs without a branch per event. `Event` is
  // wire::Event (a template, to keep generated code out of this header).
  struct EventLimits {
    std::uint64_t string_count;
    std::uint64_t ts_low;  // sent_at - kMaxEventAgeNs, as unsigned (wraps)
    static constexpr std::uint64_t kTsSpan = kMaxEventAgeNs + kMaxEventLeadNs;
    static constexpr std::uint64_t kMaxKind = 4;  // wire::EventKind::MAX (static_assert in the .cc)

    EventLimits(std::size_t strings, std::int64_t sent_at_ns)
        : string_count(strings), ts_low(static_cast<std::uint64_t>(sent_at_ns - kMaxEventAgeNs)) {}

    // True when `event` breaks a rule.
    template <typename Event>
    bool bad(const Event& event) const {
      return bad(event.cat(), event.name(), static_cast<std::uint64_t>(event.kind()),
                 event.dur_ns(), event.ts_ns());
    }
    // The same for an event's fields.
    bool bad(std::uint64_t cat, std::uint64_t name, std::uint64_t kind, std::int64_t dur_ns,
             std::int64_t ts_ns) const {
      unsigned broken = cat >= string_count;
      broken |= name >= string_count;
      broken |= kind > kMaxKind;
      broken |= static_cast<std::uint64_t>(dur_ns) > static_cast<std::uint64_t>(kMaxDurationNs);
      broken |= static_cast<std::uint64_t>(ts_ns) - ts_low > kTsSpan;
      return broken != 0;
    }
  };
};

}  // namespace stallwatch::collector
