// SPDX-License-Identifier: MIT
#include "kineto_element.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "json_object_scanner.h"
#include "traces/json_value.h"

namespace stallwatch::collector {

namespace {

using detail::key_is;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

// Reads a JSON number as the double Python's json module would produce, plus
// its exact ns value and whether it was written as an integer. The double
// comes from the token by from_chars, correctly rounded: simdjson 3.0's
// get_double (Debian 12) is wrong for a fraction of more than 19 digits
// after a zero integer part ("0.95000000000000000000" read 0.0277; fixed in
// later simdjson releases).
bool read_time(simdjson::ondemand::value value, double& us, std::int64_t& ns, bool& is_float) {
  json_type type;
  if (value.type().get(type) || type != json_type::number) return false;
  number_type nt;
  if (value.get_number_type().get(nt)) return false;
  is_float = nt == number_type::floating_point_number;
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), us);
  if (ec != std::errc() || end != token.data() + token.size()) return false;
  return detail::parse_micros_as_nanos(token, ns);
}

}  // namespace

bool parse_kineto_element(simdjson::ondemand::parser& parser, std::string_view text,
                          TraceEvent& event, KinetoElement& element, std::string& problem) {
  simdjson::ondemand::document doc;
  if (auto err = parser.iterate(text.data(), text.size(), text.size() + JsonObjectScanner::kPadding)
                     .get(doc)) {
    problem = simdjson::error_message(err);
    return false;
  }
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) {
    problem = "traceEvents element is not an object";
    return false;
  }
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) {
      problem = simdjson::error_message(err);
      return false;
    }
    // Raw keys: profiler keys have no escapes, and nothing is unescaped.
    const char* key = field.key().raw();
    simdjson::ondemand::value value = field.value();
    if (key_is(key, "ph")) {
      if (value.get_string().get(element.ph)) {
        problem = "\"ph\" is not a string";
        return false;
      }
    } else if (key_is(key, "name")) {
      std::string_view s;
      if (!detail::json_text(value, s)) {
        problem = "\"name\" is not a string";
        return false;
      }
      event.name = s;
    } else if (key_is(key, "cat")) {
      std::string_view s;
      if (!detail::json_text(value, s)) {
        problem = "\"cat\" is not a string";
        return false;
      }
      event.cat = s;
    } else if (key_is(key, "pid")) {
      detail::json_int(value, event.pid);
    } else if (key_is(key, "tid")) {
      detail::json_int(value, event.tid);
    } else if (key_is(key, "ts")) {
      bool is_float = false;
      if (!read_time(value, event.ts_us, event.ts_ns, is_float)) {
        problem = "\"ts\" is not a number";
        return false;
      }
      event.ts_is_float = is_float;
      element.has_ts = true;
    } else if (key_is(key, "dur")) {
      bool is_float = false;
      if (!read_time(value, event.dur_us, event.dur_ns, is_float)) {
        problem = "\"dur\" is not a number";
        return false;
      }
      element.has_dur = true;
    } else if (key_is(key, "args")) {
      simdjson::ondemand::object args;
      if (value.get_object().get(args)) continue;
      for (auto arg_result : args) {
        simdjson::ondemand::field arg;
        if (std::move(arg_result).get(arg)) {
          problem = "bad \"args\"";
          return false;
        }
        const char* arg_key = arg.key().raw();
        if (key_is(arg_key, "stream")) {
          detail::json_int(arg.value(), event.stream);
        } else if (key_is(arg_key, "correlation")) {
          detail::json_int(arg.value(), event.correlation);
        } else if (key_is(arg_key, "External id")) {
          detail::json_int(arg.value(), event.external_id);
        }
      }
    }
  }
  return true;
}

namespace {

// The hand-written parser. Every function returns the position after what
// it read, or nullptr where the text is not what the fast path takes (then
// the element goes to parse_kineto_element). Reads may run up to 15 bytes
// past `end` (the padding), but nothing there is taken.
class FastElement {
 public:
  FastElement(const char* begin, const char* end) : begin_(begin), end_(end) {}

  // With `length` null the object must end at `end`; else it is the object
  // at the front of the text, and `length` is set to its size.
  bool parse(TraceEvent& event, KinetoElement& element, std::size_t* length) const {
    const char* p = ws(begin_);
    if (p == end_ || *p != '{') return false;
    p = ws(p + 1);
    if (p == end_) return false;
    if (*p == '}') return ends(p + 1, length);
    for (;;) {
      std::string_view key;
      p = key_and_colon(p, key);
      if (p == nullptr) return false;
      p = ws(p);
      if (p == end_) return false;
      p = member(key, p, event, element);
      if (p == nullptr) return false;
      p = ws(p);
      if (p == end_) return false;
      if (*p == '}') return ends(p + 1, length);
      if (*p != ',') return false;
      p = ws(p + 1);
    }
  }

 private:
  static constexpr int kMaxDepth = 64;

  bool ends(const char* after, std::size_t* length) const {
    if (length == nullptr) return after == end_;
    *length = static_cast<std::size_t>(after - begin_);
    return true;
  }

  // JSON's whitespace; anything above a space ends it at one compare.
  const char* ws(const char* p) const {
    while (p < end_ && static_cast<unsigned char>(*p) <= ' ' &&
           (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
      ++p;
    return p;
  }

  // `p` is after an opening quote; returns the closing quote. Nullptr at a
  // backslash, a control character, a byte past ASCII or the end.
  const char* string_end(const char* p) const {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    for (; p < end_; p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const int quotes = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
      // Signed: bytes from 0x80 compare below 0x20 too.
      const int bad =
          _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, backslash), _mm_cmplt_epi8(v, space)));
      if ((quotes | bad) != 0) {
        const int at = __builtin_ctz(static_cast<unsigned>(quotes | bad));
        if (p + at >= end_ || ((quotes >> at) & 1) == 0) return nullptr;
        return p + at;
      }
    }
    return nullptr;
#else
    for (; p < end_; ++p) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"') return p;
      if (c == '\\' || c < 0x20 || c >= 0x80) return nullptr;
    }
    return nullptr;
#endif
  }

  // A key and the colon after it, from the key's opening quote; returns the
  // position after the colon.
  const char* key_and_colon(const char* p, std::string_view& key) const {
    if (p == end_ || *p != '"') return nullptr;
    const char* close = string_end(p + 1);
    if (close == nullptr) return nullptr;
    key = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
    const char* q = ws(close + 1);
    if (q == end_ || *q != ':') return nullptr;
    return q + 1;
  }

  // A JSON number by its grammar; `fraction` / `exponent` say which parts it
  // has. Returns its end (the caller checks what follows).
  const char* number_end(const char* p, bool& fraction, bool& exponent) const {
    fraction = false;
    exponent = false;
    if (p < end_ && *p == '-') ++p;
    if (p == end_) return nullptr;
    if (*p == '0') {
      ++p;
    } else if (*p >= '1' && *p <= '9') {
      while (p < end_ && *p >= '0' && *p <= '9')
        ++p;
    } else {
      return nullptr;
    }
    if (p < end_ && *p == '.') {
      ++p;
      const char* digits = p;
      while (p < end_ && *p >= '0' && *p <= '9')
        ++p;
      if (p == digits) return nullptr;
      fraction = true;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end_ && (*p == '+' || *p == '-')) ++p;
      const char* digits = p;
      while (p < end_ && *p >= '0' && *p <= '9')
        ++p;
      if (p == digits) return nullptr;
      exponent = true;
    }
    return p;
  }

  // An integer field (json_int's common case): digits only, at most 18.
  const char* integer(const char* p, std::int64_t& out) const {
    bool fraction = false;
    bool exponent = false;
    const char* e = number_end(p, fraction, exponent);
    if (e == nullptr || fraction || exponent) return nullptr;
    const bool negative = *p == '-';
    const char* digit = negative ? p + 1 : p;
    if (e - digit > 18) return nullptr;
    std::int64_t v = 0;
    for (; digit < e; ++digit)
      v = v * 10 + (*digit - '0');
    out = negative ? -v : v;
    return e;
  }

  // "ts" and "dur" (read_time): the double a correctly rounding parser makes
  // of the token (simdjson's and from_chars both are), and the exact ns.
  const char* time(const char* p, double& us, std::int64_t& ns, bool& is_float) const {
    bool exponent = false;
    const char* e = number_end(p, is_float, exponent);
    if (e == nullptr || exponent) return nullptr;
    const auto [ptr, ec] = std::from_chars(p, e, us);
    if (ec != std::errc() || ptr != e) return nullptr;
    if (!detail::parse_micros_as_nanos(std::string_view(p, static_cast<std::size_t>(e - p)), ns))
      return nullptr;
    return e;
  }

  const char* string(const char* p, std::string_view& out) const {
    if (*p != '"') return nullptr;
    const char* close = string_end(p + 1);
    if (close == nullptr) return nullptr;
    out = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
    return close + 1;
  }

  // Any value, checked against JSON's grammar and the limits above.
  const char* skip(const char* p, int depth) const {
    if (p == end_) return nullptr;
    switch (*p) {
      case '"': {
        const char* close = string_end(p + 1);
        return close == nullptr ? nullptr : close + 1;
      }
      case '{':
      case '[': {
        if (depth >= kMaxDepth) return nullptr;
        const char close = *p == '{' ? '}' : ']';
        p = ws(p + 1);
        if (p == end_) return nullptr;
        if (*p == close) return p + 1;
        for (;;) {
          if (close == '}') {
            std::string_view key;
            p = key_and_colon(p, key);
            if (p == nullptr) return nullptr;
            p = ws(p);
          }
          p = skip(p, depth + 1);
          if (p == nullptr) return nullptr;
          p = ws(p);
          if (p == end_) return nullptr;
          if (*p == close) return p + 1;
          if (*p != ',') return nullptr;
          p = ws(p + 1);
        }
      }
      case 't':
        return literal(p, "true");
      case 'f':
        return literal(p, "false");
      case 'n':
        return literal(p, "null");
      default: {
        bool fraction = false;
        bool exponent = false;
        return number_end(p, fraction, exponent);
      }
    }
  }

  template <std::size_t N>
  const char* literal(const char* p, const char (&word)[N]) const {
    if (static_cast<std::size_t>(end_ - p) < N - 1 || std::memcmp(p, word, N - 1) != 0)
      return nullptr;
    return p + N - 1;
  }

  const char* args(const char* p, TraceEvent& event) const {
    if (*p != '{') return skip(p, 1);
    p = ws(p + 1);
    if (p == end_) return nullptr;
    if (*p == '}') return p + 1;
    for (;;) {
      std::string_view name;
      p = key_and_colon(p, name);
      if (p == nullptr) return nullptr;
      p = ws(p);
      if (p == end_) return nullptr;
      if (name == "stream") {
        p = integer(p, event.stream);
      } else if (name == "correlation") {
        p = integer(p, event.correlation);
      } else if (name == "External id") {
        p = integer(p, event.external_id);
      } else {
        p = skip(p, 2);
      }
      if (p == nullptr) return nullptr;
      p = ws(p);
      if (p == end_) return nullptr;
      if (*p == '}') return p + 1;
      if (*p != ',') return nullptr;
      p = ws(p + 1);
    }
  }

  const char* member(std::string_view key, const char* p, TraceEvent& event,
                     KinetoElement& element) const {
    switch (key.size()) {
      case 2:
        if (key == "ph") return string(p, element.ph);
        if (key == "ts") {
          bool is_float = false;
          p = time(p, event.ts_us, event.ts_ns, is_float);
          event.ts_is_float = is_float;
          element.has_ts = true;
          return p;
        }
        break;
      case 3:
        if (key == "cat") return string(p, event.cat);
        if (key == "pid") return integer(p, event.pid);
        if (key == "tid") return integer(p, event.tid);
        if (key == "dur") {
          bool is_float = false;
          element.has_dur = true;
          return time(p, event.dur_us, event.dur_ns, is_float);
        }
        break;
      case 4:
        if (key == "name") return string(p, event.name);
        if (key == "args") return args(p, event);
        break;
      default:
        break;
    }
    return skip(p, 1);
  }

  const char* begin_;
  const char* end_;
};

}  // namespace

bool parse_kineto_element_fast(std::string_view text, TraceEvent& event, KinetoElement& element) {
  return FastElement(text.data(), text.data() + text.size()).parse(event, element, nullptr);
}

bool parse_kineto_element_fast_prefix(std::string_view text, TraceEvent& event,
                                      KinetoElement& element, std::size_t& length) {
  return FastElement(text.data(), text.data() + text.size()).parse(event, element, &length);
}

}  // namespace stallwatch::collector
