// SPDX-License-Identifier: MIT
#include "engine/name_table.h"

#include <gtest/gtest.h>

#include <string>

namespace stallwatch::collector {
namespace {

TEST(NameTableTest, InternsToStableDenseIds) {
  NameTable names;
  EXPECT_EQ(names.size(), 2u);
  EXPECT_EQ(names.intern(""), NameTable::kEmpty);
  EXPECT_EQ(names.str(NameTable::kOverflow), "<overflow>");
  const NameId fetch = names.intern("dataloader.fetch");
  const NameId compute = names.intern("compute");
  EXPECT_EQ(fetch, 2u);
  EXPECT_EQ(compute, 3u);
  EXPECT_EQ(names.intern(std::string("dataloader.") + "fetch"), fetch);
  EXPECT_EQ(names.str(fetch), "dataloader.fetch");
  EXPECT_EQ(names.size(), 4u);
}

TEST(NameTableTest, FindDoesNotIntern) {
  NameTable names;
  const NameId compute = names.intern("compute");
  EXPECT_EQ(names.find("compute"), compute);
  EXPECT_EQ(names.find("missing"), NameTable::kEmpty);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_EQ(names.str(12345), "");
}

TEST(NameTableTest, ViewsStayValidAsTheTableGrows) {
  NameTable names;
  const std::string_view first = names.str(names.intern("first-name-long-enough-to-allocate"));
  for (int i = 0; i < 10000; ++i)
    names.intern("n" + std::to_string(i));
  EXPECT_EQ(first, "first-name-long-enough-to-allocate");
}

TEST(NameTableTest, OverflowsByCount) {
  NameTable names(4);
  EXPECT_EQ(names.intern("a"), 2u);
  EXPECT_EQ(names.intern("b"), 3u);
  EXPECT_EQ(names.intern("c"), NameTable::kOverflow);
  EXPECT_EQ(names.intern("d"), NameTable::kOverflow);
  EXPECT_EQ(names.intern("a"), 2u);  // known names still resolve
  EXPECT_EQ(names.overflowed(), 2u);
  EXPECT_EQ(names.size(), 4u);
}

TEST(NameTableTest, OverflowsByBytes) {
  NameTable names(1000, 10);
  EXPECT_EQ(names.intern("12345"), 2u);
  EXPECT_EQ(names.intern("67890"), 3u);
  EXPECT_EQ(names.intern("x"), NameTable::kOverflow);
  EXPECT_EQ(names.overflowed(), 1u);
  EXPECT_EQ(names.find("x"), NameTable::kEmpty);
}

}  // namespace
}  // namespace stallwatch::collector
