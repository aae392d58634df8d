// SPDX-License-Identifier: MIT
#include "format.h"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace stallwatch::tui {
namespace {

bool missing(std::optional<double> v) {
  return !v || !std::isfinite(*v);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Three significant figures at most, as the web page's fixedSig().
std::string fixed_sig(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fixed(v, 0);
  if (a >= 10) return fixed(v, 1);
  return fixed(v, 2);
}

std::string two_digits(long v) {
  return v < 10 ? "0" + std::to_string(v) : std::to_string(v);
}

}  // namespace

std::string format_percent(std::optional<double> ratio, int digits) {
  if (missing(ratio)) return std::string(kDash);
  return fixed(*ratio * 100.0, digits) + "%";
}

std::string format_seconds(std::optional<double> seconds) {
  if (missing(seconds)) return std::string(kDash);
  const double s = *seconds;
  if (s == 0) return "0 s";
  const double a = std::fabs(s);
  const std::string sign = s < 0 ? "-" : "";
  if (a < 1e-3) return sign + fixed(a * 1e6, 0) + " µs";
  if (a < 1) return sign + fixed_sig(a * 1e3) + " ms";
  if (a < 60) return sign + fixed_sig(a) + " s";
  if (a < 3600) {
    const auto m = static_cast<long>(std::floor(a / 60));
    return sign + std::to_string(m) + "m " +
           two_digits(static_cast<long>(std::floor(a - static_cast<double>(m) * 60))) + "s";
  }
  const auto h = static_cast<long>(std::floor(a / 3600));
  const auto m = static_cast<long>(std::floor((a - static_cast<double>(h) * 3600) / 60));
  return sign + std::to_string(h) + "h " + two_digits(m) + "m";
}

std::string format_rate(std::optional<double> per_second) {
  if (missing(per_second)) return std::string(kDash);
  const double v = *per_second;
  const double a = std::fabs(v);
  if (a >= 1e6) return fixed(v / 1e6, 1) + "M";
  if (a >= 1e4) return fixed(v / 1e3, 0) + "k";
  if (a >= 1e3) return fixed(v / 1e3, 1) + "k";
  return fixed_sig(v);
}

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto v = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  return unit == 0 ? std::to_string(bytes) + " B" : fixed(v, 1) + " " + kUnits[unit];
}

std::string window_label(std::string_view name) {
  if (name.size() >= 2 && name.back() == 's' &&
      name.find_first_not_of("0123456789") == name.size() - 1) {
    return std::string(name.substr(0, name.size() - 1)) + " s";
  }
  return std::string(name);
}

std::string format_loss(std::uint64_t dropped, std::uint64_t lost) {
  return format_count(dropped) + "/" + format_count(lost);
}

}  // namespace stallwatch::tui
