// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stallwatch::collector {

// "1s", "500ms", "250us", "100ns", "2m", "1h", or a plain number of seconds
// ("0.5"); nullopt when malformed or negative.
std::optional<std::int64_t> parse_duration_ns(std::string_view text);

}  // namespace stallwatch::collector
