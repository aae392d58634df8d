// SPDX-License-Identifier: MIT
#include "name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace stallwatch::agent {
namespace {

TEST(NameTable, SameStringSameIdDifferentStringDifferentId) {
  NameTable names;
  const std::uint32_t compute = names.intern("compute");
  const std::uint32_t io = names.intern("io");
  EXPECT_NE(compute, 0u);
  EXPECT_NE(io, 0u);
  EXPECT_NE(compute, io);
  EXPECT_EQ(names.intern(std::string("compute")), compute);
  EXPECT_EQ(names.lookup(compute), "compute");
  EXPECT_EQ(names.lookup(io), "io");
  EXPECT_EQ(names.size(), 2u);
}

TEST(NameTable, RejectsEmptyAndOverlongStrings) {
  NameTable names;
  EXPECT_EQ(names.intern(""), 0u);
  EXPECT_EQ(names.intern(std::string(NameTable::kMaxLength + 1, 'a')), 0u);
  const std::uint32_t longest = names.intern(std::string(NameTable::kMaxLength, 'a'));
  EXPECT_NE(longest, 0u);
  EXPECT_EQ(names.lookup(longest).size(), NameTable::kMaxLength);
}

TEST(NameTable, UnknownIdsHaveNoString) {
  NameTable names;
  names.intern("x");
  EXPECT_EQ(names.lookup(0).data(), nullptr);
  EXPECT_EQ(names.lookup(2).data(), nullptr);
  EXPECT_EQ(names.lookup(1'000'000).data(), nullptr);
}

TEST(NameTable, KeepsStringsWithEmbeddedBytesAndTerminatesThem) {
  NameTable names;
  const std::string raw("a\0b", 3);
  const std::uint32_t id = names.intern(raw);
  EXPECT_EQ(names.lookup(id), raw);
  EXPECT_EQ(names.lookup(id).data()[3], '\0');
}

TEST(NameTable, StopsAtTheLimitAndKeepsEarlierIds) {
  NameTable names;
  for (std::uint32_t i = 1; i <= NameTable::kMaxNames; ++i) {
    ASSERT_EQ(names.intern("n" + std::to_string(i)), i);
  }
  EXPECT_EQ(names.intern("one-too-many"), 0u);
  EXPECT_EQ(names.intern("n17"), 17u);
  EXPECT_EQ(names.lookup(NameTable::kMaxNames), "n65535");
}

TEST(NameTable, ConcurrentInterningAgreesOnIds) {
  NameTable names;
  constexpr int kThreads = 4;
  constexpr int kNames = 2000;
  std::vector<std::vector<std::uint32_t>> ids(kThreads, std::vector<std::uint32_t>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kNames; ++i) {
        const int n = (t % 2 == 0) ? i : kNames - 1 - i;
        ids[t][n] = names.intern("name-" + std::to_string(n));
        // A reader sees every published id.
        ASSERT_EQ(names.lookup(ids[t][n]), "name-" + std::to_string(n));
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(names.size(), static_cast<std::uint32_t>(kNames));
  for (int t = 1; t < kThreads; ++t)
    EXPECT_EQ(ids[t], ids[0]);
}

}  // namespace
}  // namespace stallwatch::agent
