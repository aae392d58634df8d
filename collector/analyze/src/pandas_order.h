// SPDX-License-Identifier: MIT
#pragma once

// The orderings and statistics HTA's results depend on, computed the way
// pandas 1.5 on numpy 1.24 computes them, so that `stallwatch analyze`
// reproduces HTA's numbers and not merely close ones:
//  - DataFrame.sort_values(by=one column) is numpy's argsort with its default
//    "quicksort" (an introsort: median-of-three partitions, insertion sort
//    for short runs, heapsort past a depth limit). It is not stable: rows
//    with equal keys come out in an order that depends on the input order,
//    and HTA's queue lengths and idle categories depend on that order.
//    argsort_quick() follows the same steps on the same input and so returns
//    the same permutation. Descending sorts reverse, sort, and reverse again,
//    as pandas' nargsort does.
//  - Series.quantile / describe() percentiles use numpy's "linear" method,
//    with numpy's two-sided interpolation formula.
//  - sums of float64 columns use numpy's pairwise summation.
// Pure functions; no state.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stallwatch::collector {

// The permutation numpy's argsort(kind="quicksort") returns for `keys`.
std::vector<std::uint32_t> argsort_quick(std::span<const std::int64_t> keys);
std::vector<std::uint32_t> argsort_quick(std::span<const double> keys);

// pandas' sort_values(ascending=False) permutation for one column.
std::vector<std::uint32_t> argsort_quick_descending(std::span<const std::int64_t> keys);

// numpy.percentile(values, 100 * q, method="linear"); `sorted` ascending and
// not empty.
double percentile_linear(std::span<const double> sorted, double q);

// numpy's pairwise sum of float64 values, in their order.
double pairwise_sum(std::span<const double> values);

}  // namespace stallwatch::collector
