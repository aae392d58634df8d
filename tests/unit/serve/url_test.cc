// SPDX-License-Identifier: MIT
#include "url.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

TEST(Url, SplitsTargetIntoPathAndQuery) {
  EXPECT_EQ(split_target("/a/b?x=1&y").path, "/a/b");
  EXPECT_EQ(split_target("/a/b?x=1&y").query, "x=1&y");
  EXPECT_EQ(split_target("/a#frag").path, "/a");
  EXPECT_EQ(split_target("/a").query, "");
}

TEST(Url, SplitsPathWithoutDecoding) {
  const auto s = split_path("/api/v1/jobs/a%2Fb");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[3], "a%2Fb");
  EXPECT_EQ(split_path("/").size(), 1u);
  EXPECT_EQ(split_path("/x/").back(), "");
}

TEST(Url, PercentDecodes) {
  EXPECT_EQ(percent_decode("a%2Fb%20c%c3%BC", false), "a/b c\xC3\xBC");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("%00", false), std::string(1, '\0'));
  EXPECT_FALSE(percent_decode("%", false));
  EXPECT_FALSE(percent_decode("%4", false));
  EXPECT_FALSE(percent_decode("abc%zz", false));
  EXPECT_FALSE(percent_decode("%g0", false));
}

TEST(Url, ParsesQueries) {
  const auto q = parse_query("metric=data_stall_ratio&window=10s&&flag&x=a%26b+c");
  ASSERT_TRUE(q);
  ASSERT_EQ(q->size(), 4u);
  EXPECT_EQ(*find_param(*q, "metric"), "data_stall_ratio");
  EXPECT_EQ(*find_param(*q, "flag"), "");
  EXPECT_EQ(*find_param(*q, "x"), "a&b c");
  EXPECT_EQ(find_param(*q, "missing"), nullptr);
  EXPECT_FALSE(parse_query("a=%"));
}

}  // namespace
}  // namespace stallwatch::collector
