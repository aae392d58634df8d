// SPDX-License-Identifier: MIT
#pragma once

// Request-target parsing for the HTTP router: path/query split, path
// segments, percent-decoding and query strings. Pure functions; inputs are
// untrusted, malformed escapes are reported as nullopt.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallwatch::collector {

struct Target {
  std::string_view path;   // up to the first '?' (or '#')
  std::string_view query;  // after the '?', without a fragment
};
Target split_target(std::string_view target);

// The segments between '/' of a path, still encoded: "/a/b%2Fc" -> {"a", "b%2Fc"}.
std::vector<std::string_view> split_path(std::string_view path);

// Decodes %XX escapes (and '+' as a space when `plus_is_space`). nullopt
// when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

using QueryParams = std::vector<std::pair<std::string, std::string>>;
// "a=1&b=x%20y&c" -> {("a","1"), ("b","x y"), ("c","")}; nullopt on a bad escape.
std::optional<QueryParams> parse_query(std::string_view query);

// The value of the first parameter `name`, if present.
const std::string* find_param(const QueryParams& params, std::string_view name);

}  // namespace stallwatch::collector
