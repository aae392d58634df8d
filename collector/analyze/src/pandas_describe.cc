// SPDX-License-Identifier: MIT
#include "pandas_describe.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pandas_order.h"

namespace stallwatch::collector {

Describe describe(std::vector<double> values) {
  Describe d;
  d.count = values.size();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (values.empty()) {
    d.mean = d.std = d.min = d.p25 = d.p50 = d.p75 = d.max = kNaN;
    return d;
  }
  const auto n = static_cast<double>(values.size());
  d.mean = pairwise_sum(values) / n;
  if (values.size() < 2) {
    d.std = kNaN;
  } else {
    std::vector<double> squares(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double dev = d.mean - values[i];
      squares[i] = dev * dev;
    }
    d.std = std::sqrt(pairwise_sum(squares) / (n - 1));
  }
  std::sort(values.begin(), values.end());
  d.min = values.front();
  d.max = values.back();
  d.p25 = percentile_linear(values, 0.25);
  d.p50 = percentile_linear(values, 0.5);
  d.p75 = percentile_linear(values, 0.75);
  return d;
}

}  // namespace stallwatch::collector
