// SPDX-License-Identifier: MIT
#pragma once

// The one duration syntax of the product, for configuration files, flags and
// alert rules alike: a non-negative decimal number followed by a unit, ns, us,
// ms, s, m, h or d ("500ms", "10s", "1.5s", "2m", "1h", "1d", "250us",
// "100ns"). A bare number is refused: "30" could mean seconds or
// milliseconds, so the unit is never guessed (docs/api.md, "Durations").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::collector {

// Nanoseconds; nullopt for anything else (no unit, unknown unit, sign,
// exponent, overflow).
std::optional<std::int64_t> parse_duration(std::string_view text);

// Why `text` is not a duration, in words that end the sentence "'<text>' is
// not a duration: ..." ("" when it is one). A bare number is told to add a
// unit.
std::string duration_problem(std::string_view text);

}  // namespace stallwatch::collector
