// SPDX-License-Identifier: MIT
#include "quick_hash.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>

namespace stallwatch::collector {
namespace {

using detail::quick_hash;
using detail::same_text;

TEST(QuickHash, SameTextComparesEveryByteOfEveryLength) {
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'a');
    for (std::size_t i = 0; i < n; ++i)
      a[i] = static_cast<char>('a' + i % 26);
    // Views into longer buffers: nothing past the view may count.
    const std::string left = a + "x";
    const std::string right = a + "y";
    EXPECT_TRUE(same_text(std::string_view(left.data(), n), std::string_view(right.data(), n)));
    EXPECT_EQ(quick_hash(std::string_view(left.data(), n)),
              quick_hash(std::string_view(right.data(), n)));
    for (std::size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = static_cast<char>(b[i] ^ 0x20);
      EXPECT_FALSE(same_text(a, b)) << n << " " << i;
    }
    EXPECT_FALSE(same_text(a, a + "a"));
  }
}

TEST(QuickHash, SpreadsTypicalEventNames) {
  const std::string names[] = {"pread",
                               "pwrite",
                               "open64",
                               "close",
                               "read",
                               "write",
                               "lseek",
                               "loop.iter",
                               "loop.yield",
                               "fetch.iter",
                               "TorchFramework.compute",
                               "HDF5Reader.get_sample"};
  std::set<std::uint64_t> slots;
  for (const std::string& name : names)
    slots.insert(quick_hash(name) % 512);
  EXPECT_GE(slots.size(), std::size(names) - 1);
  EXPECT_NE(quick_hash("POSIX", 1), quick_hash("POSIX", 2));
}

}  // namespace
}  // namespace stallwatch::collector
