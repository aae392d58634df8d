// SPDX-License-Identifier: MIT
#pragma once

// Typed, strict reads of one table of a TOML configuration file. Every getter
// returns "" or one message naming the file, line, key and problem, e.g.
// `stallwatchd.toml:12: alerts.rule[0].for: '3x' is not a duration`. Shared by
// every config section (the daemon's loader, the alert rules, the class
// rules). Config loading only; never throws.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <toml.hpp>
#include <utility>
#include <vector>

namespace stallwatch::collector {

// Ordered (name, value) pairs of a table of strings.
using StringPairs = std::vector<std::pair<std::string, std::string>>;

class TomlFields {
 public:
  // `path` is the dotted path of this table ("alerts.rule[1]"); an empty
  // `file_name` takes the name the document was parsed under.
  TomlFields(const toml::value& table, std::string path, std::string_view file_name);

  bool has(std::string_view key) const;
  bool is_table() const { return table_.is_table(); }
  // The table's keys, in the file's order as toml11 keeps them; empty when
  // it is not a table.
  std::vector<std::string> keys() const;
  // The raw value of a key that has(), for readers of their own shapes
  // (e.g. a class or a list of classes); report problems with error(key).
  const toml::value& value(std::string_view key) const { return at(key); }
  std::string allow_only(std::initializer_list<std::string_view> allowed) const;

  std::string string(std::string_view key, std::string& out) const;
  // A list of strings; a lone string counts as a list of one unless
  // `list_only` (e.g. an argv, which a lone string would silently not split).
  std::string string_list(std::string_view key, std::vector<std::string>& out,
                          bool list_only = false) const;
  std::string string_table(std::string_view key, StringPairs& out) const;  // {a = "x"}
  std::string number(std::string_view key, double& out) const;
  std::string ratio(std::string_view key, double& out) const;  // a number in [0, 1]
  std::string integer(std::string_view key, std::int64_t& out, std::int64_t min,
                      std::int64_t max) const;
  std::string boolean(std::string_view key, bool& out) const;
  // A duration string with a unit (config/duration.h); zero allowed when
  // `allow_zero`. A bare number is refused with the hint to add a unit.
  std::string duration(std::string_view key, std::int64_t& out_ns, bool allow_zero) const;

  // "<file>:<line>: <path>.<key>: <problem>"; the table's own line when the
  // key is absent.
  std::string error(std::string_view key, std::string_view problem) const;
  // "<file>:<line>" of `key`, or of the table itself when `key` is empty or absent.
  std::string where(std::string_view key = {}) const;

 private:
  const toml::value& at(std::string_view key) const;

  const toml::value& table_;
  std::string path_;
  std::string file_name_;
};

}  // namespace stallwatch::collector
