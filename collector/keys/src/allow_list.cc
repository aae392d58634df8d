// SPDX-License-Identifier: MIT
#include "keys/allow_list.h"

#include <stallwatch/curve_key.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stallwatch::collector {

std::optional<std::vector<std::string>> parse_allow_list(std::string_view text,
                                                         std::string& error) {
  std::vector<std::string> keys;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    const std::string_view word = wire::first_word(line);
    if (word.empty() || word.front() == '#') continue;
    if (!wire::is_z85_key(word)) {
      error = "line " + std::to_string(line_number) + ": '" + std::string(word) +
              "' is not a public key (40 characters of Z85)";
      return std::nullopt;
    }
    if (std::find(keys.begin(), keys.end(), word) == keys.end()) keys.emplace_back(word);
  }
  return keys;
}

std::optional<std::vector<std::string>> read_allow_list(const std::string& path,
                                                        std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read allow-list '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto keys = parse_allow_list(text.str(), error);
  if (!keys) error = "allow-list '" + path + "': " + error;
  return keys;
}

}  // namespace stallwatch::collector
