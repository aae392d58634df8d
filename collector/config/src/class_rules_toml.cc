// SPDX-License-Identifier: MIT
#include "config/class_rules_toml.h"

#include <exception>
#include <sstream>

#include "config/class_presets.h"
#include "config/toml_fields.h"
#include "config/toml_text.h"

namespace stallwatch::collector {

namespace {

// A glob or a list of globs.
std::string read_globs(const TomlFields& f, std::string_view key, std::vector<std::string>& out) {
  const toml::value& value = f.value(key);
  out.clear();
  if (value.is_string()) {
    out.push_back(value.as_string().str);
    return {};
  }
  if (!value.is_array()) return f.error(key, "must be a string or a list of strings");
  for (const toml::value& item : value.as_array()) {
    if (!item.is_string()) return f.error(key, "must contain only strings");
    out.push_back(item.as_string().str);
  }
  return {};
}

// One class name, `value` being `key` itself or an item of its list.
std::string read_class(const TomlFields& f, std::string_view key, const toml::value& value,
                       ClassMask& mask) {
  if (!value.is_string()) return f.error(key, "must be a class name");
  const std::string& name = value.as_string().str;
  const auto c = event_class_from_string(name);
  if (!c) {
    return f.error(key,
                   "unknown class '" + name +
                       "' (expected compute, device_busy, fetch, app_io, io, comm or pipeline)");
  }
  mask = static_cast<ClassMask>(mask | class_bit(*c));
  return {};
}

std::string read_rule(const TomlFields& f, ClassRule& out) {
  if (!f.is_table()) return f.error({}, "must be a table");
  for (const auto& key : f.keys()) {
    if (key != "classes" && key != "class" && key != "cat" && key != "name" &&
        key != "main_thread") {
      return f.error(key, "unknown key (expected classes, class, cat, name or main_thread)");
    }
  }
  if (f.has("classes") == f.has("class")) {
    return f.error({}, "needs exactly one of 'classes' or 'class'");
  }
  out = ClassRule{};
  if (f.has("class")) {
    if (auto err = read_class(f, "class", f.value("class"), out.classes); !err.empty()) return err;
  } else {
    const toml::value& classes = f.value("classes");
    if (!classes.is_array()) return f.error("classes", "must be a list of class names");
    for (const toml::value& item : classes.as_array()) {
      if (auto err = read_class(f, "classes", item, out.classes); !err.empty()) return err;
    }
  }
  for (const auto& [key, globs] : {std::pair{"cat", &out.cat}, std::pair{"name", &out.name}}) {
    if (!f.has(key)) continue;
    if (auto err = read_globs(f, key, *globs); !err.empty()) return err;
  }
  if (f.has("main_thread") && !f.value("main_thread").is_boolean()) {
    return f.error("main_thread", "must be true or false");
  }
  if (f.has("main_thread")) out.main_thread_only = f.value("main_thread").as_boolean();
  return {};
}

}  // namespace

std::string class_rules_from_toml(const toml::value& classes, std::string_view file_name,
                                  ClassRulesConfig& out) {
  const TomlFields f(classes, "classes", file_name);
  if (!f.is_table()) return f.error({}, "must be a table");
  ClassRulesConfig config;
  for (const auto& key : f.keys()) {
    const toml::value& value = f.value(key);
    if (key == "preset") {
      if (!value.is_string()) return f.error(key, "must be a string");
      config.preset = value.as_string().str;
      if (!class_preset(config.preset)) {
        std::string known;
        for (auto name : class_preset_names())
          known += (known.empty() ? "" : ", ") + std::string(name);
        return f.error(key, "unknown preset '" + config.preset + "' (known: " + known + ")");
      }
    } else if (key == "rule") {
      if (!value.is_array()) return f.error(key, "must be an array of tables ([[classes.rule]])");
      std::size_t index = 0;
      for (const toml::value& rule : value.as_array()) {
        ++index;
        ClassRule parsed;
        const TomlFields rule_fields(rule, "classes.rule[" + std::to_string(index) + "]",
                                     file_name);
        if (auto err = read_rule(rule_fields, parsed); !err.empty()) return err;
        config.rules.push_back(std::move(parsed));
      }
    } else {
      return f.error(key, "unknown key (expected preset or rule)");
    }
  }
  out = std::move(config);
  return {};
}

std::string parse_class_rules_toml(std::string_view text, std::string_view file_name,
                                   ClassRulesConfig& out) {
  const std::string name(file_name.empty() ? "<config>" : file_name);
  if (auto err = check_toml_text(text, name); !err.empty()) return err;
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
