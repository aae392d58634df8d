// SPDX-License-Identifier: MIT
#include "config/duration.h"

#include <charconv>
#include <cmath>
#include <string>

namespace stallwatch::collector {

std::optional<std::int64_t> parse_duration(std::string_view text) {
  std::size_t unit_at = 0;
  while (unit_at < text.size() &&
         ((text[unit_at] >= '0' && text[unit_at] <= '9') || text[unit_at] == '.')) {
    ++unit_at;
  }
  if (unit_at == 0) return std::nullopt;
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + unit_at, number);
  if (ec != std::errc() || ptr != text.data() + unit_at) return std::nullopt;
  struct Unit {
    std::string_view name;
    double ns;
  };
  static constexpr Unit kUnits[] = {{"ns", 1},   {"us", 1e3},   {"ms", 1e6},   {"s", 1e9},
                                    {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9}};
  const std::string_view unit = text.substr(unit_at);
  for (const Unit& u : kUnits) {
    if (u.name != unit) continue;
    const double ns = number * u.ns;
    if (!std::isfinite(ns) || ns > 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(ns));
  }
  return std::nullopt;
}

std::string duration_problem(std::string_view text) {
  if (parse_duration(text)) return {};
  const std::string quoted = "'" + std::string(text) + "'";
  double number = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (!text.empty() && ec == std::errc() && ptr == text.data() + text.size()) {
    return quoted + " has no unit: write it with one, e.g. \"" + std::string(text) +
           "s\" (units ns, us, ms, s, m, h, d)";
  }
  return quoted +
         " is not a duration like \"500ms\", \"30s\" or \"2m\" (units ns, us, ms, s, m, "
         "h, d)";
}

}  // namespace stallwatch::collector
