// SPDX-License-Identifier: MIT
#pragma once

// The [classes] section shared by `stallwatch analyze --classes FILE.toml` and
// the daemon's configuration file:
//
//   [classes]
//   preset = "dlio"            # optional, default "default"
//   [[classes.rule]]           # tried in order, before the preset's rules
//   classes = ["compute"]      # or class = "compute"; [] = no class
//   cat = "ai_framework"       # glob or list of globs; omitted = any
//   name = ["TorchFramework.compute"]
//   main_thread = false
//
// Errors are values: "" on success, else one message naming the file, line and
// key, e.g. "rules.toml:7: classes.rule[2].classes: unknown class 'gpu'".

#include <string>
#include <string_view>
#include <toml.hpp>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector {

struct ClassRulesConfig {
  std::string preset = "default";
  std::vector<ClassRule> rules;  // tried before the preset's rules
};

// Parses a whole TOML document; it must contain a [classes] table.
std::string parse_class_rules_toml(std::string_view text, std::string_view file_name,
                                   ClassRulesConfig& out);

// Reads an already parsed [classes] table (the daemon's config loader).
std::string class_rules_from_toml(const toml::value& classes, std::string_view file_name,
                                  ClassRulesConfig& out);

// The preset's mapping with the config's rules in front; "" or an error
// naming an unknown preset.
std::string build_class_mapping(const ClassRulesConfig& config, ClassMapping& out);

}  // namespace stallwatch::collector
