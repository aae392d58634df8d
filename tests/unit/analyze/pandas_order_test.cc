// SPDX-License-Identifier: MIT
#include "pandas_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace stallwatch::collector {
namespace {

using Order = std::vector<std::uint32_t>;

// numpy 1.24's np.argsort(kind="quicksort") on the same keys: from 17 keys
// on it partitions, and equal keys leave in an order stable sorting would not
// give. HTA's queue lengths and kernel-type times depend on that order.
TEST(PandasOrder, ArgsortsAsNumpysQuicksort) {
  const std::vector<std::int64_t> zeros(17, 0);
  EXPECT_EQ(argsort_quick(zeros),
            (Order{0, 14, 13, 12, 11, 10, 9, 15, 8, 6, 5, 4, 3, 2, 1, 7, 16}));
  const std::vector<std::int64_t> keys = {3, 4, 4, 4, 4, 4, 0, 0, 2, 1, 4, 3, 2, 2, 2, 4, 0};
  EXPECT_EQ(argsort_quick(keys), (Order{16, 7, 6, 9, 14, 13, 12, 8, 11, 0, 15, 4, 10, 3, 2, 1, 5}));
  // Up to 16 keys numpy only insertion-sorts, which is stable.
  const std::vector<std::int64_t> few = {2, 1, 2, 1};
  EXPECT_EQ(argsort_quick(few), (Order{1, 3, 0, 2}));
}

TEST(PandasOrder, SortsDescendingAsPandas) {
  // pandas reverses, sorts ascending and reverses back (pandas 1.5 gives
  // 3, 1, 0, 2 here).
  const std::vector<std::int64_t> keys = {5, 7, 5, 9};
  EXPECT_EQ(argsort_quick_descending(keys), (Order{3, 1, 0, 2}));
}

TEST(PandasOrder, InterpolatesPercentilesLinearly) {
  const std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_linear(sorted, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(percentile_linear(sorted, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile_linear(sorted, 1.0), 4);
  EXPECT_DOUBLE_EQ(percentile_linear(std::vector<double>{7}, 0.75), 7);
}

}  // namespace
}  // namespace stallwatch::collector
