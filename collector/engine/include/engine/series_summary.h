// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "engine/engine.h"

namespace stallwatch::collector {

// Sets `s.mean` and `s.max` from `s.values`: per point, over the ranks that
// have a value there (NaN where none has). Engine::series and a tree head's
// merged series form them alike.
inline void fill_mean_max(Series& s) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.mean.clear();
  s.max.clear();
  for (std::size_t p = 0; p < s.t_ns.size(); ++p) {
    double sum = 0;
    double max = nan;
    std::size_t n = 0;
    for (const auto& v : s.values) {
      if (std::isnan(v[p])) continue;
      sum += v[p];
      max = n == 0 ? v[p] : std::max(max, v[p]);
      ++n;
    }
    s.mean.push_back(n > 0 ? sum / static_cast<double>(n) : nan);
    s.max.push_back(max);
  }
}

}  // namespace stallwatch::collector
