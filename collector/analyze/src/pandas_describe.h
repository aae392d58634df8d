// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

namespace stallwatch::collector {

// What pandas' Series.describe() prints for a numeric column: count, mean,
// sample standard deviation (ddof 1), min, the 25/50/75 % linear percentiles
// and max. Empty input gives NaN everywhere but count; one value gives a NaN
// std, as pandas does.
struct Describe {
  std::size_t count = 0;
  double mean = 0;
  double std = 0;
  double min = 0;
  double p25 = 0;
  double p50 = 0;
  double p75 = 0;
  double max = 0;
};

// The mean and std are computed as pandas' nanops do (a float64 pairwise sum
// of the values in their order, then of the squared deviations).
Describe describe(std::vector<double> values);

}  // namespace stallwatch::collector
