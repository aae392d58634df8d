// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector {

// Arrays and inline tables nested deeper than this are refused before toml11
// sees the text: toml11 (3.7) parses each level by recursion, and about
// 20 000 levels (a 20 KB line of "[") overflow the stack and crash the
// process. A configuration needs a handful.
inline constexpr int kMaxTomlNesting = 64;

// Every TOML text goes through check_toml_text before toml11 sees it: both
// checks below, the first error first. Returns "" when the text may be parsed.
std::string check_toml_text(std::string_view text, std::string_view file_name);

// A TOML document must be valid UTF-8 (TOML 1.0), and Debian's toml11 (3.7)
// reads past the end of a literal string that holds an invalid byte. Returns
// "" for valid UTF-8, else "<file_name>:<line>: not valid UTF-8 (a TOML file
// must be UTF-8)" naming the first line that is not.
std::string check_toml_utf8(std::string_view text, std::string_view file_name);

// Returns "" unless arrays and inline tables (outside strings and comments)
// nest deeper than kMaxTomlNesting, else "<file_name>:<line>: arrays and
// inline tables nested more than 64 deep" naming the line of the first
// bracket too many; or a binary integer (0b...) has more than 62 digits,
// which toml11 (3.7) overflows on: "<file_name>:<line>: a binary integer with
// more than 62 digits". Unbalanced brackets are left to toml11 to report.
std::string check_toml_nesting(std::string_view text, std::string_view file_name);

}  // namespace stallwatch::collector
