// SPDX-License-Identifier: MIT
// The fast path of the dftracer reader: a forward-only scanner for the compact
// JSON subset dftracer writes. It reads words, not bytes, where it can: keys
// are recognized by one masked 8-byte comparison, integers are parsed eight
// digits at a time, and strings are searched 16 bytes at a time. Every read
// past the line's end stays inside the padding the caller guarantees
// (kScanPadding bytes); nothing found there is ever taken as part of the line.

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dftracer_record.h"
#include "traces/json_value.h"
#include "word_scan.h"

namespace stallwatch::collector {

namespace {

using namespace detail::word_scan;

// A forward-only reader of the JSON subset dftracer writes. Every method
// returns false on anything outside that subset; the caller then falls back
// to the full parser, which also reports what is wrong.
struct Scanner {
  const char* p;
  const char* end;

  void ws() {
    while (p < end && (*p == ' ' || *p == '\t'))
      ++p;
  }
  // Compact JSON has no blanks: the common case is one comparison.
  bool lit(char c) {
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    if (p < end && *p == c) return true;
    ws();
    return p < end && *p == c;
  }

  // The first '"' or '\\' in [from, end), or end.
  const char* find_quote_or_backslash(const char* from) const {
#if defined(__SSE2__)
    while (from < end) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
      const int hits = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')),
                                                      _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\\'))));
      if (hits != 0) return std::min(end, from + std::countr_zero(static_cast<unsigned>(hits)));
      from += 16;
    }
    return end;
#else
    while (from < end && *from != '"' && *from != '\\')
      ++from;
    return from;
#endif
  }

  // p at an opening quote: consumes the key when it is `k` followed by ':'
  // (after optional blanks).
  bool key_is(const KeyWord& k) {
    if ((load64(p + 1) & k.mask) != k.word || p + k.length + 2 > end) return false;
    p += k.length + 2;
    return true;
  }
  // A string without escapes.
  bool plain_string(std::string_view& out) {
    if (!peek('"')) return false;
    const char* start = ++p;
    const char* close = find_quote_or_backslash(p);
    if (close >= end || *close != '"') return false;
    out = std::string_view(start, static_cast<std::size_t>(close - start));
    p = close + 1;
    return true;
  }
  bool skip_string() {
    if (p >= end || *p != '"') return false;
    ++p;
    for (;;) {
      p = find_quote_or_backslash(p);
      if (p >= end) return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      p += 2;  // an escape and the character it escapes
    }
  }
  // Up to 19 digits at p (not past end); false with p unchanged when none.
  bool digits(std::uint64_t& value, unsigned& count) {
    value = 0;
    count = 0;
    for (;;) {
      const auto left = static_cast<std::size_t>(end - p);
      unsigned n = digit_run(load64(p));
      if (n > left) n = static_cast<unsigned>(left);
      if (n == 0) break;
      value = value * kPow10[n] + digits_value(load64(p), n);
      p += n;
      count += n;
      if (count > 19) return false;
      if (n < 8) break;
    }
    return count > 0;
  }
  // A JSON integer followed by a delimiter (not a fraction or exponent), of
  // at most 19 digits (larger ones go to the full parser). The common case,
  // up to eight digits, is one word.
  [[gnu::always_inline]] bool integer(std::int64_t& out) {
    if (p < end && (*p == ' ' || *p == '\t')) ws();
    const char* s = p;
    const bool negative = p < end && *p == '-';
    if (negative) ++p;
    const auto left = static_cast<std::size_t>(end - p);
    const std::uint64_t w = load64(p);
    unsigned n = digit_run(w);
    if (n > left) n = static_cast<unsigned>(left);
    // JSON has no leading zeros: "007" goes to the full parser, which says so.
    if (n == 0 || (n > 1 && static_cast<char>(w) == '0')) {
      p = s;
      return false;
    }
    std::uint64_t v = digits_value(w, n);
    p += n;
    if (n == 8) {
      unsigned count = 8;
      for (;;) {
        const auto rest = static_cast<std::size_t>(end - p);
        const std::uint64_t more = load64(p);
        unsigned m = digit_run(more);
        if (m > rest) m = static_cast<unsigned>(rest);
        if (m == 0) break;
        count += m;
        if (count > 19) {
          p = s;
          return false;
        }
        v = v * kPow10[m] + digits_value(more, m);
        p += m;
        if (m < 8) break;
      }
    }
    if (p < end && !is_delimiter(*p)) {
      p = s;
      return false;
    }
    if (negative) {
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        p = s;
        return false;
      }
      out = -static_cast<std::int64_t>(v);
    } else {
      out = static_cast<std::int64_t>(v);  // beyond int64 wraps, as json_int does
    }
    return true;
  }
  // A JSON integer whose value is not wanted; the same checks as integer().
  bool skip_integer() {
    if (p < end && is_digit(*p)) {
      const std::uint64_t w = load64(p);
      const unsigned n = digit_run(w);
      if (n < 8 && static_cast<std::size_t>(end - p) > n &&
          (n == 1 || static_cast<char>(w) != '0') && is_delimiter(p[n])) {
        p += n;
        return true;
      }
    }
    std::int64_t ignored = 0;
    return integer(ignored);
  }
  bool number_token(std::string_view& out) {
    ws();
    const char* s = p;
    std::uint64_t ignored = 0;
    unsigned count = 0;
    if (p < end && *p != '-') digits(ignored, count);
    while (p < end && kNumberChar[static_cast<unsigned char>(*p)])
      ++p;
    if (p == s || (p < end && !is_delimiter(*p))) return false;
    out = std::string_view(s, static_cast<std::size_t>(p - s));
    return true;
  }
  // A string (content) or a number (raw token), as json_text gives them.
  bool text(std::string_view& out) {
    return peek('"') ? plain_string(out) : number_token(out);
  }
  bool skip_literal(std::string_view word) {
    if (static_cast<std::size_t>(end - p) < word.size() ||
        std::memcmp(p, word.data(), word.size()) != 0) {
      return false;
    }
    p += word.size();
    return p >= end || is_delimiter(*p);
  }
  bool skip_nested() {
    int depth = 0;
    while (p < end) {
      const char c = *p;
      if (c == '"') {
        if (!skip_string()) return false;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        --depth;
        if (depth == 0) {
          ++p;
          return true;
        }
      }
      ++p;
    }
    return false;
  }
  bool skip_value() {
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '"':
        return skip_string();
      case '{':
      case '[':
        return skip_nested();
      case 't':
        return skip_literal("true");
      case 'f':
        return skip_literal("false");
      case 'n':
        return skip_literal("null");
      default: {
        std::string_view token;
        return number_token(token);
      }
    }
  }
  // A key that none of the fast comparisons took.
  bool other_key() {
    std::string_view key;
    return plain_string(key);
  }
};

// args.step / args.epoch: an integer or a decimal string; anything else is ignored.
bool scan_int_like(Scanner& s, std::int64_t& out) {
  if (s.peek('"')) {
    std::string_view text;
    if (!s.plain_string(text)) return false;
    std::int64_t v = 0;
    if (detail::parse_int(text, v)) out = v;
    return true;
  }
  return s.integer(out);
}

enum class ArgKey : std::uint8_t {
  kOther,
  kHhash,
  kName,
  kValue,
  kStep,
  kEpoch,
  kRet,
  kPpid,
  kSize,
  kFname,
  kFhash
};

// The args keys the reader takes, told apart by length first.
ArgKey arg_key(std::string_view key) {
  switch (key.size()) {
    case 3:
      return key == "ret" ? ArgKey::kRet : ArgKey::kOther;
    case 4:
      if (key == "name") return ArgKey::kName;
      if (key == "step") return ArgKey::kStep;
      if (key == "size") return ArgKey::kSize;
      return key == "ppid" ? ArgKey::kPpid : ArgKey::kOther;
    case 5:
      if (key == "hhash") return ArgKey::kHhash;
      if (key == "value") return ArgKey::kValue;
      if (key == "fname") return ArgKey::kFname;
      if (key == "fhash") return ArgKey::kFhash;
      return key == "epoch" ? ArgKey::kEpoch : ArgKey::kOther;
    default:
      return ArgKey::kOther;
  }
}

bool scan_args(Scanner& s, DftracerRecord& r) {
  if (!s.lit('{')) return false;
  if (s.lit('}')) return true;
  const bool want_counter = !r.has_phase || r.phase == kPhaseCounter;
  const bool want_ret = dftracer_wants_ret(r.cat, r.name);
  for (;;) {
    std::string_view key;
    if (!s.plain_string(key) || !s.lit(':')) return false;
    bool ok = true;
    switch (arg_key(key)) {
      case ArgKey::kHhash:
        ok = s.skip_value();
        break;
      case ArgKey::kName:
        ok = s.text(r.meta_name);
        break;
      case ArgKey::kValue: {
        ok = s.text(r.meta_value);
        r.has_meta_value = ok;
        std::int64_t v = 0;
        if (ok && detail::parse_int(r.meta_value, v)) {
          r.counter_value = v;
          r.has_counter_value = true;
        }
        break;
      }
      case ArgKey::kStep:
        ok = scan_int_like(s, r.step);
        break;
      case ArgKey::kEpoch:
        ok = scan_int_like(s, r.epoch);
        break;
      case ArgKey::kPpid:
        ok = s.integer(r.start_ppid);
        break;
      case ArgKey::kFname:
        ok = want_ret ? s.text(r.fname) : s.skip_value();
        break;
      case ArgKey::kFhash:
        ok = want_ret ? s.text(r.fhash) : s.skip_value();
        break;
      case ArgKey::kRet:
        if (want_ret) {
          ok = r.has_ret = s.integer(r.ret);
          break;
        }
        [[fallthrough]];
      case ArgKey::kSize:
        if (want_ret) {
          ok = s.integer(r.size);
          break;
        }
        [[fallthrough]];
      case ArgKey::kOther:
        if (want_counter && !r.has_counter_value && !s.peek('"') && !s.peek('{') && !s.peek('[')) {
          std::int64_t v = 0;
          if (s.integer(v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          } else {
            ok = s.skip_value();
          }
        } else {
          ok = s.skip_value();
        }
        break;
    }
    if (!ok) return false;
    if (s.lit(',')) continue;
    return s.lit('}');
  }
}

bool scan_time(Scanner& s, std::int64_t& out_ns) {
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

bool scan_phase(Scanner& s, DftracerRecord& r) {
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

}  // namespace

namespace {

// Whether the line continues with `text` (2..8 bytes), compared as one word.
template <std::size_t N>
bool next_is(const Scanner& s, const char (&text)[N]) {
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
bool member(Scanner& s, const char (&text)[N], Read read) {
  if (!next_is(s, text)) return false;
  const char* at = s.p;
  s.p += N - 1;
  if (read()) return true;
  s.p = at;
  return false;
}

// The members dftracer writes, in its order, each recognized with one word
// compare; stops at the first that differs, after the last value taken.
void scan_usual_members(Scanner& s, DftracerRecord& r) {
  member(s, "\"id\":", [&] { return s.skip_integer(); });
  if (!member(s, ",\"name\":", [&] { return s.plain_string(r.name); })) return;
  if (!member(s, ",\"cat\":", [&] { return s.plain_string(r.cat); })) return;
  member(s, ",\"type\":", [&] { return s.skip_integer(); });
  if (!member(s, ",\"pid\":", [&] { return r.has_pid = s.integer(r.pid); })) return;
  if (!member(s, ",\"tid\":", [&] { return s.integer(r.tid); })) return;
  if (!member(s, ",\"ts\":", [&] { return r.has_ts = scan_time(s, r.ts_ns); })) return;
  member(s, ",\"dur\":", [&] { return r.has_dur = scan_time(s, r.dur_ns); });
  if (!member(s, ",\"ph\":", [&] { return scan_phase(s, r); })) return;
  member(s, ",\"args\":", [&] { return s.peek('{') && scan_args(s, r); });
}

// Any members, in any order, up to the closing brace. `first`: right after
// the opening brace; else after a value.
bool scan_members(Scanner& s, DftracerRecord& r, bool first) {
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
      ok = s.lit(':') && (s.peek('{') ? scan_args(s, r) : s.skip_value());
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
  Scanner s{line.data(), line.data() + line.size()};
  r.clear();
  if (!s.lit('{')) return false;
  const char* first = s.p;
  scan_usual_members(s, r);
  if (!scan_members(s, r, s.p == first)) return false;
  s.ws();
  return s.p == s.end;
}

}  // namespace stallwatch::collector
