// SPDX-License-Identifier: MIT
#include "traces/json_value.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace stallwatch::collector::detail {

namespace {

// 2^63: doubles in (-2^63, 2^63) convert to int64 without overflow.
constexpr double kTwo63 = 9223372036854775808.0;

}  // namespace

bool parse_int(std::string_view text, std::int64_t& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool parse_micros_as_nanos(std::string_view text, std::int64_t& out) {
  std::int64_t whole = 0;
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  const std::size_t digits_start = i;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1000 - 1;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    whole = whole * 10 + (text[i] - '0');
    if (whole > kMax) return false;
  }
  if (i == digits_start) return false;
  std::int64_t frac = 0;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (frac_digits < 3) {
        frac = frac * 10 + (text[i] - '0');
        ++frac_digits;
      }
    }
  }
  if (i != text.size()) {
    // Exponent or junk: fall back to a double (exact enough below 2^53 ns).
    double d = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (ec != std::errc() || ptr != text.data() + text.size()) return false;
    const double ns = d * 1000.0;
    if (!(ns > -kTwo63 && ns < kTwo63)) return false;  // no int64 holds it (or not finite)
    out = static_cast<std::int64_t>(std::llround(ns));
    return true;
  }
  while (frac_digits < 3) {
    frac *= 10;
    ++frac_digits;
  }
  out = whole * 1000 + frac;
  if (negative) out = -out;
  return true;
}

bool json_micros(simdjson::ondemand::value value, std::int64_t& out_ns) {
  std::int64_t us = 0;
  if (!value.get_int64().get(us)) return micros_to_nanos(us, out_ns);
  std::string_view token;
  return json_text(value, token) && parse_micros_as_nanos(token, out_ns);
}

bool json_int(simdjson::ondemand::value value, std::int64_t& out) {
  if (!value.get_int64().get(out)) return true;
  simdjson::ondemand::json_type type;
  if (value.type().get(type)) return false;
  switch (type) {
    case simdjson::ondemand::json_type::number: {
      simdjson::ondemand::number_type nt;
      if (value.get_number_type().get(nt)) return false;
      if (nt == simdjson::ondemand::number_type::signed_integer) return !value.get_int64().get(out);
      if (nt == simdjson::ondemand::number_type::unsigned_integer) {
        std::uint64_t u = 0;
        if (value.get_uint64().get(u)) return false;
        out = static_cast<std::int64_t>(u);  // past int64 wraps (a uint64 -1 reads -1)
        return true;
      }
      // A fraction is cut toward zero; a value an int64 cannot hold (or not
      // finite) is no integer: converting it would be undefined. The double
      // comes from the token: simdjson 3.0's get_double misreads a long
      // fraction after a zero integer part (read_time in kineto_element.cc).
      std::string_view token = value.raw_json_token();
      while (!token.empty() && (token.back() == ' ' || token.back() == '\n' ||
                                token.back() == '\r' || token.back() == '\t')) {
        token.remove_suffix(1);
      }
      double d = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
      if (ec != std::errc() || end != token.data() + token.size() || !(d >= -kTwo63 && d < kTwo63))
        return false;
      out = static_cast<std::int64_t>(d);
      return true;
    }
    case simdjson::ondemand::json_type::string: {
      std::string_view s;
      if (value.get_string().get(s)) return false;
      return parse_int(s, out);
    }
    default:
      return false;
  }
}

bool json_text(simdjson::ondemand::value value, std::string_view& out) {
  simdjson::ondemand::json_type type;
  if (value.type().get(type)) return false;
  if (type == simdjson::ondemand::json_type::string) return !value.get_string().get(out);
  if (type == simdjson::ondemand::json_type::number) {
    out = value.raw_json_token();
    while (!out.empty() &&
           (out.back() == ' ' || out.back() == '\n' || out.back() == '\r' || out.back() == '\t')) {
      out.remove_suffix(1);
    }
    return true;
  }
  return false;
}

}  // namespace stallwatch::collector::detail
