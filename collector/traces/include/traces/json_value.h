// SPDX-License-Identifier: MIT
#pragma once

// Lenient scalar access on simdjson on-demand values: trace writers disagree
// on whether ids, steps and hashes are numbers or strings.

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace stallwatch::collector::detail {

// An integer written as a JSON integer, an integral float, or a decimal string.
bool json_int(simdjson::ondemand::value value, std::int64_t& out);
// A time in µs (integer, decimal, or decimal string) as exact nanoseconds.
bool json_micros(simdjson::ondemand::value value, std::int64_t& out_ns);
// Whether the raw (not unescaped) key starting at `raw` is exactly `key`:
// compares the key and its closing quote. May read a few bytes past a shorter
// key, which a padded simdjson document always allows.
template <std::size_t N>
bool key_is(const char* raw, const char (&key)[N]) {
  return std::memcmp(raw, key, N - 1) == 0 && raw[N - 1] == '"';
}
// A string value; numbers are returned as their raw token.
bool json_text(simdjson::ondemand::value value, std::string_view& out);
// A decimal integer string, with an optional sign.
bool parse_int(std::string_view text, std::int64_t& out);
// A decimal with an optional sign and fraction, scaled by 1000 exactly
// (µs -> ns): "1712195495505582.988" -> 1712195495505582988. Digits past the
// third decimal are dropped; exponents go through a double.
bool parse_micros_as_nanos(std::string_view text, std::int64_t& out);
// Whole microseconds -> nanoseconds; false when the product overflows.
inline bool micros_to_nanos(std::int64_t us, std::int64_t& out) {
  if (us > std::numeric_limits<std::int64_t>::max() / 1000 ||
      us < std::numeric_limits<std::int64_t>::min() / 1000) {
    return false;
  }
  out = us * 1000;
  return true;
}

}  // namespace stallwatch::collector::detail
