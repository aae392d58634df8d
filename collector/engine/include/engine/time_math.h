// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstdint>

namespace stallwatch::collector::detail {

// Times from the wire are clamped into ±2^62 ns (about ±146 years around the
// epoch) so grid arithmetic on them can never overflow.
inline constexpr std::int64_t kTimeLimit = std::int64_t{1} << 62;

inline std::int64_t clamp_time(std::int64_t t) {
  return std::clamp(t, -kTimeLimit, kTimeLimit);
}

// The end of a region of `dur` ns (negative: 0) from `ts`, both clamped
// first; saturates at kTimeLimit instead of overflowing.
inline std::int64_t saturating_end(std::int64_t ts, std::int64_t dur) {
  const std::int64_t start = clamp_time(ts);
  const std::int64_t length = clamp_time(std::max<std::int64_t>(dur, 0));
  return start > kTimeLimit - length ? kTimeLimit : start + length;
}

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

inline std::int64_t floor_grid(std::int64_t t, std::int64_t res) {
  return floor_div(t, res) * res;
}

inline std::int64_t ceil_grid(std::int64_t t, std::int64_t res) {
  const std::int64_t f = floor_grid(t, res);
  return f == t ? t : f + res;
}

}  // namespace stallwatch::collector::detail
