#pragma once

// Typed, strict access to one table of a TOML config file. Every getter
// returns "" on success or one message that names the file, line, key and
// problem, e.g. `stallwatchd.toml:12: engine.windows: '10x' is not a duration`.
// Used only while loading configuration; never throws.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <toml.hpp>
#include <vector>

namespace stallwatch::collector {

class ConfigSection {
 public:
  // `prefix` is the dotted path of this table ("engine"), "" for the root.
  ConfigSection(const toml::value& table, std::string prefix, std::string_view file_name = {});

  bool has(std::string_view key) const;
  // Fails on the first key of the table not in `allowed` (typos are errors).
  std::string allow_only(std::initializer_list<std::string_view> allowed) const;

  std::string string(std::string_view key, std::string& out) const;
  std::string string_list(std::string_view key, std::vector<std::string>& out) const;
  std::string integer(std::string_view key, std::int64_t& out, std::int64_t min,
                      std::int64_t max) const;
  std::string ratio(std::string_view key, double& out) const;  // a number in [0, 1]
  std::string number(std::string_view key, double& out) const;
  std::string boolean(std::string_view key, bool& out) const;
  // A duration string ("500ms", "2m") or a number of seconds.
  std::string duration(std::string_view key, std::int64_t& out_ns) const;

  // "<file>:<line>: <prefix>.<key>: <problem>".
  std::string error(std::string_view key, std::string_view problem) const;

 private:
  const toml::value& at(std::string_view key) const;

  const toml::value& table_;
  std::string prefix_;
  std::string file_name_;
};

}  // namespace stallwatch::collector
