// SPDX-License-Identifier: MIT
#include "config/duration_arg.h"

#include <charconv>
#include <cmath>

namespace stallwatch::collector {

std::optional<std::int64_t> parse_duration_ns(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double ns;
  };
  static constexpr Unit kUnits[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6},
                                    {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}};
  double scale = 1e9;
  std::string_view number = text;
  for (const Unit& unit : kUnits) {
    if (text.size() > unit.suffix.size() &&
        text.substr(text.size() - unit.suffix.size()) == unit.suffix) {
      // "ms" must not be read as "m" + "s": the table lists longer suffixes first.
      scale = unit.ns;
      number = text.substr(0, text.size() - unit.suffix.size());
      break;
    }
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(value) ||
      value < 0) {
    return std::nullopt;
  }
  const double ns = value * scale;
  if (ns > 9.0e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(ns));
}

}  // namespace stallwatch::collector
