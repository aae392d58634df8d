// SPDX-License-Identifier: MIT
#include "config/class_rules_toml.h"

#include <exception>
#include <sstream>

#include "config/class_presets.h"

namespace stallwatch::collector {

namespace {

std::string located(std::string_view file_name, const toml::value& at, std::string_view key,
                    std::string_view problem) {
  std::string out(file_name.empty() ? "<config>" : file_name);
  const auto line = at.location().line();
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  out += key;
  out += ": ";
  out += problem;
  return out;
}

// A glob or a list of globs.
std::string read_globs(const toml::value& value, std::string_view file_name, const std::string& key,
                       std::vector<std::string>& out) {
  out.clear();
  if (value.is_string()) {
    out.push_back(value.as_string().str);
    return {};
  }
  if (!value.is_array())
    return located(file_name, value, key, "must be a string or a list of strings");
  for (const toml::value& item : value.as_array()) {
    if (!item.is_string()) return located(file_name, item, key, "must contain only strings");
    out.push_back(item.as_string().str);
  }
  return {};
}

std::string read_class(const toml::value& value, std::string_view file_name, const std::string& key,
                       ClassMask& mask) {
  if (!value.is_string()) return located(file_name, value, key, "must be a class name");
  const std::string& name = value.as_string().str;
  const auto c = event_class_from_string(name);
  if (!c) {
    return located(file_name, value, key,
                   "unknown class '" + name +
                       "' (expected compute, device_busy, fetch, app_io, io, comm or pipeline)");
  }
  mask = static_cast<ClassMask>(mask | class_bit(*c));
  return {};
}

std::string read_rule(const toml::value& rule, std::string_view file_name,
                      const std::string& prefix, ClassRule& out) {
  if (!rule.is_table()) return located(file_name, rule, prefix, "must be a table");
  const auto& table = rule.as_table();
  for (const auto& [key, value] : table) {
    if (key != "classes" && key != "class" && key != "cat" && key != "name" &&
        key != "main_thread") {
      return located(file_name, value, prefix + "." + key,
                     "unknown key (expected classes, class, cat, name or main_thread)");
    }
  }
  const bool has_classes = table.count("classes") != 0;
  const bool has_class = table.count("class") != 0;
  if (has_classes == has_class) {
    return located(file_name, rule, prefix, "needs exactly one of 'classes' or 'class'");
  }
  out = ClassRule{};
  if (has_class) {
    if (auto err = read_class(table.at("class"), file_name, prefix + ".class", out.classes);
        !err.empty()) {
      return err;
    }
  } else {
    const toml::value& classes = table.at("classes");
    if (!classes.is_array()) {
      return located(file_name, classes, prefix + ".classes", "must be a list of class names");
    }
    for (const toml::value& item : classes.as_array()) {
      if (auto err = read_class(item, file_name, prefix + ".classes", out.classes); !err.empty()) {
        return err;
      }
    }
  }
  if (table.count("cat") != 0) {
    if (auto err = read_globs(table.at("cat"), file_name, prefix + ".cat", out.cat); !err.empty()) {
      return err;
    }
  }
  if (table.count("name") != 0) {
    if (auto err = read_globs(table.at("name"), file_name, prefix + ".name", out.name);
        !err.empty()) {
      return err;
    }
  }
  if (table.count("main_thread") != 0) {
    const toml::value& v = table.at("main_thread");
    if (!v.is_boolean())
      return located(file_name, v, prefix + ".main_thread", "must be true or false");
    out.main_thread_only = v.as_boolean();
  }
  return {};
}

}  // namespace

std::string class_rules_from_toml(const toml::value& classes, std::string_view file_name,
                                  ClassRulesConfig& out) {
  if (!classes.is_table()) return located(file_name, classes, "classes", "must be a table");
  ClassRulesConfig config;
  for (const auto& [key, value] : classes.as_table()) {
    if (key == "preset") {
      if (!value.is_string())
        return located(file_name, value, "classes.preset", "must be a string");
      config.preset = value.as_string().str;
      if (!class_preset(config.preset)) {
        std::string known;
        for (auto name : class_preset_names())
          known += (known.empty() ? "" : ", ") + std::string(name);
        return located(file_name, value, "classes.preset",
                       "unknown preset '" + config.preset + "' (known: " + known + ")");
      }
    } else if (key == "rule") {
      if (!value.is_array()) {
        return located(file_name, value, "classes.rule",
                       "must be an array of tables ([[classes.rule]])");
      }
      std::size_t index = 0;
      for (const toml::value& rule : value.as_array()) {
        ++index;
        ClassRule parsed;
        const std::string prefix = "classes.rule[" + std::to_string(index) + "]";
        if (auto err = read_rule(rule, file_name, prefix, parsed); !err.empty()) return err;
        config.rules.push_back(std::move(parsed));
      }
    } else {
      return located(file_name, value, "classes." + key, "unknown key (expected preset or rule)");
    }
  }
  out = std::move(config);
  return {};
}

std::string parse_class_rules_toml(std::string_view text, std::string_view file_name,
                                   ClassRulesConfig& out) {
  const std::string name(file_name.empty() ? "<config>" : file_name);
  toml::value root;
  try {
    std::istringstream in{std::string(text)};
    root = toml::parse(in, name);
  } catch (const toml::exception& e) {
    std::string message = e.what();
    // toml11 formats a multi-line report; its first line carries the problem.
    const auto eol = message.find('\n');
    if (eol != std::string::npos) message.resize(eol);
    const auto prefix = message.find("] ");
    if (message.rfind("[error]", 0) == 0 && prefix != std::string::npos)
      message.erase(0, prefix + 2);
    return name + ":" + std::to_string(e.location().line()) + ": " + message;
  } catch (const std::exception& e) {
    return name + ": " + e.what();
  }
  if (!root.is_table() || root.as_table().count("classes") == 0) {
    return name + ": no [classes] table";
  }
  return class_rules_from_toml(root.as_table().at("classes"), file_name, out);
}

std::string build_class_mapping(const ClassRulesConfig& config, ClassMapping& out) {
  auto mapping = class_preset(config.preset);
  if (!mapping) return "unknown class preset '" + config.preset + "'";
  mapping->prepend(config.rules);
  out = std::move(*mapping);
  return {};
}

}  // namespace stallwatch::collector
