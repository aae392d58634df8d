// SPDX-License-Identifier: MIT
// The record level of the dftracer line scanner (scan_dftracer_record): the
// members of one line's object, read first in the order dftracer writes them
// (one word compare per key), then in any order, with "ts"/"dur" in either
// dialect (integer µs, or a string) and "ph" as an integer or a Chrome
// letter. Tokens come from DftracerScanner (dftracer_scanner.h), the "args"
// object from scan_dftracer_args (dftracer_scan_args.h).

#include <cstdint>
#include <string_view>

#include "dftracer_record.h"
#include "dftracer_scan_args.h"
#include "dftracer_scanner.h"
#include "traces/json_value.h"
#include "word_scan.h"

namespace stallwatch::collector {

namespace {

using namespace detail::word_scan;

bool scan_time(detail::DftracerScanner& s, std::int64_t& out_ns) {
  std::int64_t us = 0;
  if (s.end - s.p > 16 && *s.p != '0') {
    // The usual µs since the epoch: sixteen digits, two words.
    const std::uint64_t high = load64(s.p);
    const std::uint64_t low = load64(s.p + 8);
    if (digit_run(high) == 8 && digit_run(low) == 8 && is_delimiter(s.p[16])) {
      s.p += 16;
      us = static_cast<std::int64_t>(digits_value(high, 8) * 100000000 + digits_value(low, 8));
      return detail::micros_to_nanos(us, out_ns);
    }
  }
  if (s.p < s.end && is_digit(*s.p)) {
    if (s.integer(us)) return detail::micros_to_nanos(us, out_ns);
  } else if (!s.peek('"') && s.integer(us)) {
    return detail::micros_to_nanos(us, out_ns);
  }
  std::string_view token;
  if (!s.text(token)) return false;
  return detail::parse_micros_as_nanos(token, out_ns);
}

bool scan_phase(detail::DftracerScanner& s, DftracerRecord& r) {
  bool ok = false;
  if (s.p < s.end && is_digit(*s.p)) {
    ok = s.integer(r.phase);
  } else if (s.peek('"')) {
    std::string_view ph;
    ok = s.plain_string(ph);
    r.phase = dftracer_phase_from_letter(ph);
  } else {
    ok = s.integer(r.phase);
  }
  r.has_phase = ok;
  return ok;
}

// Whether the line continues with `text` (2..8 bytes), compared as one word.
template <std::size_t N>
bool next_is(const detail::DftracerScanner& s, const char (&text)[N]) {
  static_assert(N >= 3 && N <= 9, "2..8 bytes");
  std::uint64_t want = 0;
  for (std::size_t i = 0; i < N - 1; ++i)
    want |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i])) << (8 * i);
  constexpr std::uint64_t kMask = N == 9 ? ~0ULL : (1ULL << (8 * (N - 1))) - 1;
  return (load64(s.p) & kMask) == want && static_cast<std::size_t>(s.end - s.p) >= N - 1;
}

// Consumes `text` and the value `read` takes after it; false, with nothing
// consumed, when either is not there.
template <std::size_t N, typename Read>
bool member(detail::DftracerScanner& s, const char (&text)[N], Read read) {
  if (!next_is(s, text)) return false;
  const char* at = s.p;
  s.p += N - 1;
  if (read()) return true;
  s.p = at;
  return false;
}

// The members dftracer writes, in its order, each recognized with one word
// compare; stops at the first that differs, after the last value taken.
void scan_usual_members(detail::DftracerScanner& s, DftracerRecord& r) {
  member(s, "\"id\":", [&] { return s.skip_integer(); });
  if (!member(s, ",\"name\":", [&] { return s.plain_string(r.name); })) return;
  if (!member(s, ",\"cat\":", [&] { return s.plain_string(r.cat); })) return;
  member(s, ",\"type\":", [&] { return s.skip_integer(); });
  if (!member(s, ",\"pid\":", [&] { return r.has_pid = s.integer(r.pid); })) return;
  if (!member(s, ",\"tid\":", [&] { return s.integer(r.tid); })) return;
  if (!member(s, ",\"ts\":", [&] { return r.has_ts = scan_time(s, r.ts_ns); })) return;
  member(s, ",\"dur\":", [&] { return r.has_dur = scan_time(s, r.dur_ns); });
  if (!member(s, ",\"ph\":", [&] { return scan_phase(s, r); })) return;
  member(s, ",\"args\":", [&] { return s.peek('{') && detail::scan_dftracer_args(s, r); });
}

// Any members, in any order, up to the closing brace. `first`: right after
// the opening brace; else after a value.
bool scan_members(detail::DftracerScanner& s, DftracerRecord& r, bool first) {
  if (s.lit('}')) return true;
  if (!first && !s.lit(',')) return false;
  for (;;) {
    if (!s.peek('"')) return false;
    bool ok = true;
    if (s.key_is(kName)) {
      ok = s.lit(':') && s.plain_string(r.name);
    } else if (s.key_is(kCat)) {
      ok = s.lit(':') && s.plain_string(r.cat);
    } else if (s.key_is(kPid)) {
      ok = r.has_pid = s.lit(':') && s.integer(r.pid);
    } else if (s.key_is(kTid)) {
      ok = s.lit(':') && s.integer(r.tid);
    } else if (s.key_is(kTs)) {
      ok = r.has_ts = s.lit(':') && scan_time(s, r.ts_ns);
    } else if (s.key_is(kDur)) {
      ok = r.has_dur = s.lit(':') && scan_time(s, r.dur_ns);
    } else if (s.key_is(kPh)) {
      ok = s.lit(':') && scan_phase(s, r);
    } else if (s.key_is(kArgs)) {
      ok = s.lit(':') && (s.peek('{') ? detail::scan_dftracer_args(s, r) : s.skip_value());
    } else {
      ok = s.other_key() && s.lit(':') && s.skip_value();
    }
    if (!ok) return false;
    if (s.lit(',')) continue;
    return s.lit('}');
  }
}

}  // namespace

bool scan_dftracer_record(std::string_view line, DftracerRecord& r) {
  detail::DftracerScanner s{line.data(), line.data() + line.size()};
  r.clear();
  if (!s.lit('{')) return false;
  const char* first = s.p;
  scan_usual_members(s, r);
  if (!scan_members(s, r, s.p == first)) return false;
  s.ws();
  return s.p == s.end;
}

}  // namespace stallwatch::collector
