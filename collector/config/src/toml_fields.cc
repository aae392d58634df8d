// SPDX-License-Identifier: MIT
#include "config/toml_fields.h"

#include <charconv>
#include <cmath>

#include "config/duration.h"

namespace stallwatch::collector {

TomlFields::TomlFields(const toml::value& table, std::string path, std::string_view file_name)
    : table_(table), path_(std::move(path)), file_name_(file_name) {}

bool TomlFields::has(std::string_view key) const {
  return table_.is_table() && table_.as_table().count(std::string(key)) != 0;
}

std::vector<std::string> TomlFields::keys() const {
  std::vector<std::string> out;
  if (!table_.is_table()) return out;
  for (const auto& [key, value] : table_.as_table())
    out.push_back(key);
  return out;
}

const toml::value& TomlFields::at(std::string_view key) const {
  return table_.as_table().at(std::string(key));
}

std::string TomlFields::allow_only(std::initializer_list<std::string_view> allowed) const {
  if (!table_.is_table()) return error("", "must be a table");
  for (const auto& [key, value] : table_.as_table()) {
    bool known = false;
    for (auto a : allowed)
      known = known || a == key;
    if (!known) {
      std::string list;
      for (auto a : allowed)
        list += (list.empty() ? "" : ", ") + std::string(a);
      return error(key, "unknown key (known: " + list + ")");
    }
  }
  return {};
}

std::string TomlFields::where(std::string_view key) const {
  const toml::value& v = !key.empty() && has(key) ? at(key) : table_;
  const auto loc = v.location();
  if (loc.line() == 0) return file_name_;
  return (file_name_.empty() ? loc.file_name() : file_name_) + ":" + std::to_string(loc.line());
}

std::string TomlFields::error(std::string_view key, std::string_view problem) const {
  const std::string at_line = where(key);
  std::string path = path_;
  if (!key.empty()) path += (path.empty() ? "" : ".") + std::string(key);
  return (at_line.empty() ? std::string() : at_line + ": ") + path + ": " + std::string(problem);
}

std::string TomlFields::string(std::string_view key, std::string& out) const {
  const auto& v = at(key);
  if (!v.is_string()) return error(key, "expected a string");
  out = v.as_string().str;
  return {};
}

std::string TomlFields::string_list(std::string_view key, std::vector<std::string>& out,
                                    bool list_only) const {
  const auto& v = at(key);
  out.clear();
  if (v.is_string() && list_only) return error(key, "expected a list of strings");
  if (v.is_string()) {
    out.push_back(v.as_string().str);
    return {};
  }
  if (!v.is_array()) return error(key, "expected a string or a list of strings");
  for (const auto& item : v.as_array()) {
    if (!item.is_string()) return error(key, "expected a list of strings");
    out.push_back(item.as_string().str);
  }
  return {};
}

std::string TomlFields::string_table(std::string_view key, StringPairs& out) const {
  const auto& v = at(key);
  out.clear();
  if (!v.is_table()) return error(key, "expected a table of strings, e.g. { team = \"ml\" }");
  for (const auto& [name, value] : v.as_table()) {
    if (!value.is_string()) return error(key, "'" + name + "' must be a string");
    out.emplace_back(name, value.as_string().str);
  }
  return {};
}

std::string TomlFields::number(std::string_view key, double& out) const {
  const auto& v = at(key);
  if (v.is_floating()) {
    out = v.as_floating();
  } else if (v.is_integer()) {
    out = static_cast<double>(v.as_integer());
  } else {
    return error(key, "expected a number");
  }
  if (!std::isfinite(out)) return error(key, "expected a finite number");
  return {};
}

std::string TomlFields::ratio(std::string_view key, double& out) const {
  double x = 0;
  if (auto err = number(key, x); !err.empty()) return err;
  if (!(x >= 0.0 && x <= 1.0)) return error(key, "expected a ratio between 0 and 1");
  out = x;
  return {};
}

std::string TomlFields::integer(std::string_view key, std::int64_t& out, std::int64_t min,
                                std::int64_t max) const {
  const auto& v = at(key);
  if (!v.is_integer()) return error(key, "expected an integer");
  const std::int64_t n = v.as_integer();
  if (n < min || n > max) {
    return error(key, std::to_string(n) + " is out of range [" + std::to_string(min) + ", " +
                          std::to_string(max) + "]");
  }
  out = n;
  return {};
}

std::string TomlFields::boolean(std::string_view key, bool& out) const {
  const auto& v = at(key);
  if (!v.is_boolean()) return error(key, "expected true or false");
  out = v.as_boolean();
  return {};
}

std::string TomlFields::duration(std::string_view key, std::int64_t& out_ns,
                                 bool allow_zero) const {
  const auto& v = at(key);
  std::optional<std::int64_t> ns;
  if (v.is_string()) {
    ns = parse_duration(v.as_string().str);
    if (!ns) return error(key, duration_problem(v.as_string().str));
  } else if (v.is_integer() || v.is_floating()) {
    const std::string number = v.is_integer() ? std::to_string(v.as_integer()) : toml::format(v);
    return error(key, "a duration is a string with a unit, e.g. \"" + number +
                          "s\" (units ns, us, ms, s, m, h, d), not a bare number");
  } else {
    return error(key, "expected a duration like \"30s\"");
  }
  if (*ns < 0 || (*ns == 0 && !allow_zero)) return error(key, "must be a positive duration");
  out_ns = *ns;
  return {};
}

}  // namespace stallwatch::collector
