#include "replay/dftracer_record.h"

#include <array>
#include <cstring>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "replay/json_value.h"

namespace stallwatch::collector {

namespace {

bool is_delimiter(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t';
}

// Characters that may appear in a JSON number.
constexpr auto kNumberChar = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view("0123456789+-.eE"))
    table[static_cast<unsigned char>(c)] = true;
  return table;
}();

// The first '"' or '\\' in [p, end), or end; 16 bytes at a time where SSE2 is
// there (every x86-64).
const char* find_quote_or_backslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int hits = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (hits != 0) return p + __builtin_ctz(static_cast<unsigned>(hits));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\')
    ++p;
  return p;
}

// Key comparison for the short, fixed keys we dispatch on.
template <std::size_t N>
bool is(std::string_view key, const char (&word)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
}

// A forward-only reader of the JSON subset dftracer writes. Every method
// returns false on anything outside that subset; the caller then falls back
// to the full parser, which also reports what is wrong.
struct Scanner {
  const char* p;
  const char* end;

  // Compact JSON has no blanks: the common case is one comparison.
  void ws() {
    while (p < end && (*p == ' ' || *p == '\t'))
      ++p;
  }
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
  // A string without escapes.
  bool plain_string(std::string_view& out) {
    if (!peek('"')) return false;
    const char* start = ++p;
    const char* close = find_quote_or_backslash(p, end);
    if (close >= end || *close != '"') return false;
    out = std::string_view(start, static_cast<std::size_t>(close - start));
    p = close + 1;
    return true;
  }
  bool skip_string() {
    if (p >= end || *p != '"') return false;
    ++p;
    for (;;) {
      p = find_quote_or_backslash(p, end);
      if (p >= end) return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      p += 2;  // an escape and the character it escapes
    }
  }
  // A JSON integer followed by a delimiter (not a fraction or exponent), of
  // at most 19 digits (larger ones go to the full parser).
  bool integer(std::int64_t& out) {
    if (p < end && (*p == ' ' || *p == '\t')) ws();
    const char* s = p;
    const bool negative = p < end && *p == '-';
    if (negative) ++p;
    const char* digits = p;
    std::uint64_t v = 0;
    while (p < end && static_cast<unsigned>(*p - '0') < 10u) {
      v = v * 10 + static_cast<std::uint64_t>(*p - '0');
      ++p;
    }
    const auto n = p - digits;
    if (n == 0 || n > 19 || (p < end && !is_delimiter(*p))) {
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
  bool number_token(std::string_view& out) {
    ws();
    const char* s = p;
    while (p < end && kNumberChar[static_cast<unsigned char>(*p)])
      ++p;
    if (p == s || (p < end && !is_delimiter(*p))) return false;
    out = std::string_view(s, static_cast<std::size_t>(p - s));
    return true;
  }
  // A string (content) or a number (raw token), as json_text gives them.
  bool text(std::string_view& out) { return peek('"') ? plain_string(out) : number_token(out); }
  bool skip_literal(std::string_view word) {
    if (static_cast<std::size_t>(end - p) < word.size() ||
        std::memcmp(p, word.data(), word.size()) != 0) {
      return false;
    }
    p += word.size();
    return p >= end || is_delimiter(*p);
  }
  bool skip_value() {
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '"':
        return skip_string();
      case '{':
      case '[': {
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

bool scan_args(Scanner& s, DftracerRecord& r) {
  if (!s.lit('{')) return false;
  if (s.lit('}')) return true;
  const bool want_counter = !r.has_phase || r.phase == kPhaseCounter;
  const bool want_ret = r.name == "fork" || r.name == "vfork";
  for (;;) {
    std::string_view key;
    if (!s.plain_string(key) || !s.lit(':')) return false;
    bool ok = true;
    if (is(key, "hhash")) {
      ok = s.skip_value();
    } else if (is(key, "name")) {
      ok = s.text(r.meta_name);
    } else if (is(key, "value")) {
      ok = s.text(r.meta_value);
      r.has_meta_value = ok;
      std::int64_t v = 0;
      if (ok && detail::parse_int(r.meta_value, v)) {
        r.counter_value = v;
        r.has_counter_value = true;
      }
    } else if (is(key, "step")) {
      ok = scan_int_like(s, r.step);
    } else if (is(key, "epoch")) {
      ok = scan_int_like(s, r.epoch);
    } else if (is(key, "ret") && want_ret) {
      ok = s.integer(r.fork_ret);
    } else if (is(key, "ppid")) {
      ok = s.integer(r.start_ppid);
    } else if (want_counter && !r.has_counter_value && !s.peek('"') && !s.peek('{') &&
               !s.peek('[')) {
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
    if (!ok) return false;
    if (s.lit(',')) continue;
    return s.lit('}');
  }
}

bool scan_time(Scanner& s, std::int64_t& out_ns) {
  std::int64_t us = 0;
  if (!s.peek('"') && s.integer(us)) {
    if (us > std::numeric_limits<std::int64_t>::max() / 1000 ||
        us < std::numeric_limits<std::int64_t>::min() / 1000) {
      return false;
    }
    out_ns = us * 1000;
    return true;
  }
  std::string_view token;
  if (!s.text(token)) return false;
  return detail::parse_micros_as_nanos(token, out_ns);
}

}  // namespace

std::int64_t dftracer_phase_from_letter(std::string_view ph) {
  if (ph == "X") return kPhaseComplete;
  if (ph == "C") return kPhaseCounter;
  if (ph == "M") return kPhaseMetadata;
  if (ph == "A") return kPhaseAggregated;
  if (ph == "i" || ph == "I" || ph == "R") return kPhaseInstant;
  return kPhaseUnknown;
}

bool scan_dftracer_record(std::string_view line, DftracerRecord& r) {
  Scanner s{line.data(), line.data() + line.size()};
  r = DftracerRecord{};
  if (!s.lit('{')) return false;
  if (!s.lit('}')) {
    for (;;) {
      std::string_view key;
      if (!s.plain_string(key) || !s.lit(':')) return false;
      bool ok = true;
      if (is(key, "name")) {
        ok = s.plain_string(r.name);
      } else if (is(key, "cat")) {
        ok = s.plain_string(r.cat);
      } else if (is(key, "pid")) {
        ok = r.has_pid = s.integer(r.pid);
      } else if (is(key, "tid")) {
        ok = s.integer(r.tid);
      } else if (is(key, "ts")) {
        ok = r.has_ts = scan_time(s, r.ts_ns);
      } else if (is(key, "dur")) {
        ok = r.has_dur = scan_time(s, r.dur_ns);
      } else if (is(key, "ph")) {
        if (s.peek('"')) {
          std::string_view ph;
          ok = s.plain_string(ph);
          r.phase = dftracer_phase_from_letter(ph);
        } else {
          ok = s.integer(r.phase);
        }
        r.has_phase = ok;
      } else if (is(key, "args")) {
        if (s.peek('{')) {
          ok = scan_args(s, r);
        } else {
          ok = s.skip_value();
        }
      } else {
        ok = s.skip_value();
      }
      if (!ok) return false;
      if (s.lit(',')) continue;
      if (s.lit('}')) break;
      return false;
    }
  }
  s.ws();
  return s.p == s.end;
}

bool parse_dftracer_record(simdjson::ondemand::parser& parser, std::string_view line,
                           std::size_t padding, DftracerRecord& r, std::string& problem) {
  using detail::key_is;
  using simdjson::ondemand::json_type;
  r = DftracerRecord{};
  simdjson::ondemand::document doc;
  if (auto err = parser.iterate(line.data(), line.size(), line.size() + padding).get(doc)) {
    problem = simdjson::error_message(err);
    return false;
  }
  simdjson::ondemand::object object;
  if (auto err = doc.get_object().get(object)) {
    problem = simdjson::error_message(err);
    return false;
  }
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) {
      problem = simdjson::error_message(err);
      return false;
    }
    const char* key = field.key().raw();
    simdjson::ondemand::value value = field.value();
    if (key_is(key, "name")) {
      if (value.get_string().get(r.name)) {
        problem = "\"name\" is not a string";
        return false;
      }
    } else if (key_is(key, "cat")) {
      if (value.get_string().get(r.cat)) {
        problem = "\"cat\" is not a string";
        return false;
      }
    } else if (key_is(key, "pid")) {
      if (!detail::json_int(value, r.pid)) {
        problem = "\"pid\" is not an integer";
        return false;
      }
      r.has_pid = true;
    } else if (key_is(key, "tid")) {
      if (!detail::json_int(value, r.tid)) {
        problem = "\"tid\" is not an integer";
        return false;
      }
    } else if (key_is(key, "ts")) {
      if (!detail::json_micros(value, r.ts_ns)) {
        problem = "\"ts\" is not a number of microseconds";
        return false;
      }
      r.has_ts = true;
    } else if (key_is(key, "dur")) {
      if (!detail::json_micros(value, r.dur_ns)) {
        problem = "\"dur\" is not a number of microseconds";
        return false;
      }
      r.has_dur = true;
    } else if (key_is(key, "ph")) {
      std::string_view ph;
      if (!value.get_string().get(ph)) {
        r.phase = dftracer_phase_from_letter(ph);
      } else if (!detail::json_int(value, r.phase)) {
        problem = "bad \"ph\"";
        return false;
      }
      r.has_phase = true;
    } else if (key_is(key, "args")) {
      simdjson::ondemand::object args;
      if (value.get_object().get(args)) continue;  // non-object args carry nothing we use
      const bool want_counter = !r.has_phase || r.phase == kPhaseCounter;
      const bool want_ret = r.name == "fork" || r.name == "vfork";
      for (auto arg_result : args) {
        simdjson::ondemand::field arg;
        if (auto err = std::move(arg_result).get(arg)) {
          problem = simdjson::error_message(err);
          return false;
        }
        const char* arg_key = arg.key().raw();
        if (key_is(arg_key, "hhash")) continue;
        simdjson::ondemand::value arg_value = arg.value();
        if (key_is(arg_key, "name")) {
          detail::json_text(arg_value, r.meta_name);
        } else if (key_is(arg_key, "value")) {
          r.has_meta_value = detail::json_text(arg_value, r.meta_value);
          std::int64_t v = 0;
          if (r.has_meta_value && detail::parse_int(r.meta_value, v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          }
        } else if (key_is(arg_key, "step")) {
          std::int64_t v = 0;
          if (detail::json_int(arg_value, v)) r.step = v;
        } else if (key_is(arg_key, "epoch")) {
          std::int64_t v = 0;
          if (detail::json_int(arg_value, v)) r.epoch = v;
        } else if (want_ret && key_is(arg_key, "ret")) {
          detail::json_int(arg_value, r.fork_ret);
        } else if (key_is(arg_key, "ppid")) {
          detail::json_int(arg_value, r.start_ppid);
        } else if (want_counter && !r.has_counter_value) {
          std::int64_t v = 0;
          if (!arg_value.get_int64().get(v)) {
            r.counter_value = v;
            r.has_counter_value = true;
          }
        }
      }
    }
  }
  return true;
}

}  // namespace stallwatch::collector
