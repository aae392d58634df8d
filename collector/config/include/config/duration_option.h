// SPDX-License-Identifier: MIT
#pragma once

// A command-line option in the duration syntax (config/duration.h) for the
// commands that parse their flags with CLI11. Header-only, so that the config
// library itself does not depend on CLI11.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "config/duration.h"

namespace stallwatch::collector {

// Adds option `name` to `app`: a duration longer than 0, stored in `ns`. A
// usage error says what is wrong with the text.
inline CLI::Option* add_duration_option(CLI::App& app, const std::string& name, std::int64_t& ns,
                                        const std::string& help) {
  return app
      .add_option_function<std::string>(
          name, [&ns](const std::string& v) { ns = *parse_duration(v); }, help)
      ->type_name("DURATION")
      ->check([](const std::string& v) -> std::string {
        const auto parsed = parse_duration(v);
        if (!parsed) return duration_problem(v);
        return *parsed > 0 ? "" : "must be more than 0";
      });
}

}  // namespace stallwatch::collector
