#include "app/config_section.h"

#include "app/daemon_config.h"

namespace stallwatch::collector {

ConfigSection::ConfigSection(const toml::value& table, std::string prefix,
                             std::string_view file_name)
    : table_(table), prefix_(std::move(prefix)), file_name_(file_name) {}

bool ConfigSection::has(std::string_view key) const {
  return table_.is_table() && table_.as_table().count(std::string(key)) != 0;
}

const toml::value& ConfigSection::at(std::string_view key) const {
  return table_.as_table().at(std::string(key));
}

std::string ConfigSection::allow_only(std::initializer_list<std::string_view> allowed) const {
  if (!table_.is_table()) return error("", "must be a table");
  for (const auto& [key, value] : table_.as_table()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return error(key, "unknown key (known: " + list + ")");
    }
  }
  return {};
}

std::string ConfigSection::error(std::string_view key, std::string_view problem) const {
  std::string where;
  if (!file_name_.empty()) where = file_name_;
  if (!key.empty() && has(key)) {
    const auto loc = at(key).location();
    if (loc.line() > 0) {
      const std::string file = file_name_.empty() ? loc.file_name() : file_name_;
      where = file + ":" + std::to_string(loc.line());
    }
  }
  std::string path = prefix_;
  if (!key.empty()) path += (path.empty() ? "" : ".") + std::string(key);
  std::string out;
  if (!where.empty()) out = where + ": ";
  return out + path + ": " + std::string(problem);
}

std::string ConfigSection::string(std::string_view key, std::string& out) const {
  const auto& v = at(key);
  if (!v.is_string()) return error(key, "expected a string");
  out = v.as_string().str;
  return {};
}

std::string ConfigSection::string_list(std::string_view key, std::vector<std::string>& out) const {
  const auto& v = at(key);
  out.clear();
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

std::string ConfigSection::integer(std::string_view key, std::int64_t& out, std::int64_t min,
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

std::string ConfigSection::number(std::string_view key, double& out) const {
  const auto& v = at(key);
  if (v.is_integer()) {
    out = static_cast<double>(v.as_integer());
  } else if (v.is_floating()) {
    out = v.as_floating();
  } else {
    return error(key, "expected a number");
  }
  return {};
}

std::string ConfigSection::ratio(std::string_view key, double& out) const {
  double x = 0;
  if (auto err = number(key, x); !err.empty()) return err;
  if (!(x >= 0.0 && x <= 1.0)) return error(key, "expected a ratio between 0 and 1");
  out = x;
  return {};
}

std::string ConfigSection::boolean(std::string_view key, bool& out) const {
  const auto& v = at(key);
  if (!v.is_boolean()) return error(key, "expected true or false");
  out = v.as_boolean();
  return {};
}

std::string ConfigSection::duration(std::string_view key, std::int64_t& out_ns) const {
  const auto& v = at(key);
  if (v.is_string()) {
    auto ns = parse_duration(v.as_string().str);
    if (!ns || *ns <= 0) {
      return error(key, "'" + v.as_string().str + "' is not a duration like \"500ms\" or \"2m\"");
    }
    out_ns = *ns;
    return {};
  }
  double seconds = 0;
  if (auto err = number(key, seconds); !err.empty()) {
    return error(key, "expected a duration like \"500ms\" or a number of seconds");
  }
  if (!(seconds > 0) || seconds > 9e9) return error(key, "must be a positive duration");
  out_ns = static_cast<std::int64_t>(seconds * 1e9);
  return {};
}

}  // namespace stallwatch::collector
