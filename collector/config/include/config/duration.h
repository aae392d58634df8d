// SPDX-License-Identifier: MIT
#pragma once

// Durations in configuration files and flags: "500ms", "10s", "1.5s", "2m",
// "1h", "1d", "250us", "100ns" -> nanoseconds. Shared by every config section
// (the daemon's loader and the alert rules).

#include <cstdint>
#include <optional>
#include <string_view>

namespace stallwatch::collector {

// nullopt for anything else (no unit, unknown unit, sign, exponent, overflow).
std::optional<std::int64_t> parse_duration(std::string_view text);

}  // namespace stallwatch::collector
