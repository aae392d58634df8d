// SPDX-License-Identifier: MIT
#pragma once

// The allow-list of agents' public keys (docs/design.md, "CURVE"): a text
// file with one Z85 key as the first word of each line; blank lines and lines
// starting with "#" are ignored, words after the key are comments (a host
// name, an owner).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::collector {

// The keys of an allow-list's text, in order, duplicates dropped; nullopt
// with "line N: ..." in `error` when a line holds something that is not a key.
std::optional<std::vector<std::string>> parse_allow_list(std::string_view text, std::string& error);

// The same for a file; the error names the file.
std::optional<std::vector<std::string>> read_allow_list(const std::string& path,
                                                        std::string& error);

}  // namespace stallwatch::collector
