// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector {

// A TOML document must be valid UTF-8 (TOML 1.0), and Debian's toml11 (3.7)
// reads past the end of a literal string that holds an invalid byte, so every
// TOML text is checked before toml11 sees it. Returns "" for valid UTF-8, else
// "<file_name>:<line>: not valid UTF-8 (a TOML file must be UTF-8)" naming
// the first line that is not.
std::string check_toml_utf8(std::string_view text, std::string_view file_name);

}  // namespace stallwatch::collector
