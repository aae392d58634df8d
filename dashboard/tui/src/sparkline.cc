// SPDX-License-Identifier: MIT
#include "sparkline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace stallwatch::tui {
namespace {

constexpr std::array<std::string_view, 8> kLevels{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
// Left-aligned partial blocks for 1/8 .. 7/8 of a column.
constexpr std::array<std::string_view, 8> kEighths{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};

}  // namespace

std::string sparkline(std::span<const std::optional<double>> values, int width, double lo,
                      double hi) {
  if (width <= 0) return {};
  const auto n = static_cast<int>(values.size());
  const int shown = std::min(n, width);
  std::string out(static_cast<std::size_t>(width - shown), ' ');
  const double span = hi > lo ? hi - lo : 1.0;
  for (int i = n - shown; i < n; ++i) {
    const auto& v = values[static_cast<std::size_t>(i)];
    if (!v || !std::isfinite(*v)) {
      out.push_back(' ');
      continue;
    }
    const double scaled = std::clamp((*v - lo) / span, 0.0, 1.0);
    const auto level = static_cast<std::size_t>(std::lround(scaled * 7.0));
    out.append(kLevels[level]);
  }
  return out;
}

std::string ratio_bar(std::optional<double> ratio, int width) {
  if (width <= 0) return {};
  if (!ratio || !std::isfinite(*ratio)) return std::string(static_cast<std::size_t>(width), ' ');
  const long eighths = std::lround(std::clamp(*ratio, 0.0, 1.0) * width * 8.0);
  const long full = eighths / 8;
  const long rest = eighths % 8;
  std::string out;
  for (long i = 0; i < full; ++i)
    out.append(kLevels.back());
  out.append(kEighths[static_cast<std::size_t>(rest)]);
  const long used = full + (rest > 0 ? 1 : 0);
  out.append(static_cast<std::size_t>(width - used), ' ');
  return out;
}

}  // namespace stallwatch::tui
