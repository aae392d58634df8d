// SPDX-License-Identifier: MIT
#pragma once

// The token level of the dftracer line scanner: a forward-only reader of the
// compact JSON subset dftracer writes. It reads words, not bytes, where it
// can: keys are recognized by one masked 8-byte comparison, integers are
// parsed eight digits at a time, and strings are searched 16 bytes at a time.
// Every read past the line's end stays inside the padding the caller
// guarantees (kScanPadding bytes, dftracer_record.h); nothing found there is
// ever taken as part of the line. Users: the record scanner
// (dftracer_scan.cc) and the args scanner (dftracer_scan_args.cc); all
// methods are inline, the hot path of the reader.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "word_scan.h"

namespace stallwatch::collector::detail {

// A forward-only reader of the JSON subset dftracer writes, over [p, end).
// Every method returns false on anything outside that subset; the caller then
// falls back to the full parser, which also reports what is wrong. Views it
// returns point into the line. One per line, on the reading thread.
struct DftracerScanner {
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
  bool key_is(const word_scan::KeyWord& k) {
    if ((word_scan::load64(p + 1) & k.mask) != k.word || p + k.length + 2 > end) return false;
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
      unsigned n = word_scan::digit_run(word_scan::load64(p));
      if (n > left) n = static_cast<unsigned>(left);
      if (n == 0) break;
      value = value * word_scan::kPow10[n] + word_scan::digits_value(word_scan::load64(p), n);
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
    const std::uint64_t w = word_scan::load64(p);
    unsigned n = word_scan::digit_run(w);
    if (n > left) n = static_cast<unsigned>(left);
    // JSON has no leading zeros: "007" goes to the full parser, which says so.
    if (n == 0 || (n > 1 && static_cast<char>(w) == '0')) {
      p = s;
      return false;
    }
    std::uint64_t v = word_scan::digits_value(w, n);
    p += n;
    if (n == 8) {
      unsigned count = 8;
      for (;;) {
        const auto rest = static_cast<std::size_t>(end - p);
        const std::uint64_t more = word_scan::load64(p);
        unsigned m = word_scan::digit_run(more);
        if (m > rest) m = static_cast<unsigned>(rest);
        if (m == 0) break;
        count += m;
        if (count > 19) {
          p = s;
          return false;
        }
        v = v * word_scan::kPow10[m] + word_scan::digits_value(more, m);
        p += m;
        if (m < 8) break;
      }
    }
    if (p < end && !word_scan::is_delimiter(*p)) {
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
    if (p < end && word_scan::is_digit(*p)) {
      const std::uint64_t w = word_scan::load64(p);
      const unsigned n = word_scan::digit_run(w);
      if (n < 8 && static_cast<std::size_t>(end - p) > n &&
          (n == 1 || static_cast<char>(w) != '0') && word_scan::is_delimiter(p[n])) {
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
    while (p < end && word_scan::kNumberChar[static_cast<unsigned char>(*p)])
      ++p;
    if (p == s || (p < end && !word_scan::is_delimiter(*p))) return false;
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
    return p >= end || word_scan::is_delimiter(*p);
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

}  // namespace stallwatch::collector::detail
