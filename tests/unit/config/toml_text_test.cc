// SPDX-License-Identifier: MIT
// The checks every TOML text passes before toml11 parses it.
#include "config/toml_text.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

namespace stallwatch::collector {
namespace {

std::string nested(int levels, char open = '[', char close = ']') {
  return std::string(static_cast<std::size_t>(levels), open) +
         std::string(static_cast<std::size_t>(levels), close);
}

TEST(TomlNesting, AcceptsUpToTheLimitAndNamesTheLineOfTheFirstLevelTooMany) {
  EXPECT_EQ(check_toml_nesting("a = " + nested(kMaxTomlNesting) + "\n", "x.toml"), "");
  EXPECT_EQ(check_toml_nesting("# c\n\na = " + nested(kMaxTomlNesting + 1) + "\n", "x.toml"),
            "x.toml:3: arrays and inline tables nested more than 64 deep");
  // Inline tables count as levels, mixed with arrays.
  std::string mixed = "a = ";
  for (int i = 0; i <= kMaxTomlNesting / 2; ++i)
    mixed += "[{b = ";
  EXPECT_NE(check_toml_nesting(mixed, "x.toml"), "");
  // Levels closed again do not add up.
  std::string siblings = "a = [";
  for (int i = 0; i < 1000; ++i)
    siblings += nested(8) + ",";
  EXPECT_EQ(check_toml_nesting(siblings + "]\n", "x.toml"), "");
  // Table headers open and close like any bracket.
  EXPECT_EQ(check_toml_nesting("[[alerts.rules]]\nname = 'a'\n[[alerts.rules]]\n", "x.toml"), "");
}

TEST(TomlNesting, BracketsInStringsAndCommentsDoNotCount) {
  const std::string deep = nested(kMaxTomlNesting + 1);
  for (const std::string& text : {
           "a = \"" + deep + "\"\n",              // basic string
           "a = \"\\\"" + deep + "\"\n",          // after an escaped quote
           "a = '" + deep + "'\n",                // literal string
           "a = \"\"\"\n" + deep + "\n\"\"\"\n",  // multi-line basic
           "a = '''\n'' " + deep + "\n'''\n",     // multi-line literal
           "# " + deep + "\n",                    // comment
           "\"" + deep + "\" = 1\n",              // quoted key
       }) {
    EXPECT_EQ(check_toml_nesting(text, "x.toml"), "") << text;
  }
  // Outside a string, the same brackets count; the line number follows
  // newlines inside multi-line strings and line-ending backslashes.
  EXPECT_EQ(check_toml_nesting("a = \"\"\"\n\\\n\n\"\"\"\nb = " + deep + "\n", "x.toml"),
            "x.toml:5: arrays and inline tables nested more than 64 deep");
  // A literal string has no escapes; a multi-line string may end in up to
  // two more quotes than its delimiter.
  EXPECT_EQ(check_toml_nesting("a = '\\' " + deep + "\n", "x.toml"),
            "x.toml:1: arrays and inline tables nested more than 64 deep");
  EXPECT_EQ(check_toml_nesting("a = \"\"\"x\"\"\"\" " + deep + "\n", "x.toml"),
            "x.toml:1: arrays and inline tables nested more than 64 deep");
  EXPECT_EQ(check_toml_nesting("a = '''x''''' " + deep + "\n", "x.toml"),
            "x.toml:1: arrays and inline tables nested more than 64 deep");
  // A single-line string ends at the end of its line, closed or not.
  EXPECT_EQ(check_toml_nesting("a = \"open\nb = " + deep + "\n", "x.toml"),
            "x.toml:2: arrays and inline tables nested more than 64 deep");
}

// config_toml_fuzz: toml11 3.7 doubles an int64 once per binary digit, the
// last one's too, and overflowed (undefined) on 64 digits, then on 63,
// leading zeros included.
TEST(TomlNesting, BinaryIntegersOfMoreThanSixtyTwoDigitsAreRefused) {
  // The fuzzer's two inputs (64 and 63 digits), and the bounds.
  for (const auto& [text, line] : std::initializer_list<std::pair<std::string, int>>{
           {"k =0b00000_0000000_100000_000000_00_0000000_100000_00_0000000_10000000_100000_0000000",
            1},
           {"k =0b00000_0000000_100000_000_00_00000000000000_100000_000_0000000_100000_00_00000",
            1},
           {"a = 1\nk = 0b" + std::string(64, '0'), 2},
           {"k = 0b" + std::string(63, '1'), 1}}) {
    EXPECT_EQ(check_toml_nesting(text + "\n", "x.toml"),
              "x.toml:" + std::to_string(line) + ": a binary integer with more than 62 digits")
        << text;
  }
  EXPECT_EQ(check_toml_nesting("k = 0b" + std::string(62, '1') + "\n", "x.toml"), "");
  EXPECT_EQ(check_toml_nesting("k = [0b1_0, 0b" + std::string(62, '0') + "]\n", "x.toml"), "");
  // Not a literal: inside a string, a comment, or a longer bare word.
  const std::string digits(70, '1');
  EXPECT_EQ(check_toml_nesting("k = '0b" + digits + "'\n# 0b" + digits + "\n", "x.toml"), "");
  EXPECT_EQ(check_toml_nesting("x0b" + digits + " = 1\n", "x.toml"), "");
}

TEST(TomlText, ChecksUtf8FirstThenNesting) {
  EXPECT_EQ(check_toml_text("a = 'f\xd4'\nb = " + nested(100) + "\n", "x.toml"),
            "x.toml:1: not valid UTF-8 (a TOML file must be UTF-8)");
  EXPECT_EQ(check_toml_text("a = 1\nb = " + nested(100) + "\n", "x.toml"),
            "x.toml:2: arrays and inline tables nested more than 64 deep");
  EXPECT_EQ(check_toml_text("a = [[1, 2], {b = [3]}]\n", "x.toml"), "");
}

}  // namespace
}  // namespace stallwatch::collector
