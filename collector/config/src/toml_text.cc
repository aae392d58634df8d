// SPDX-License-Identifier: MIT
#include "config/toml_text.h"

#include <simdjson.h>

namespace stallwatch::collector {

std::string check_toml_utf8(std::string_view text, std::string_view file_name) {
  if (simdjson::validate_utf8(text.data(), text.size())) return {};
  // A newline is never inside a multi-byte sequence: the first line that is
  // not valid UTF-8 on its own is where the text goes wrong.
  std::size_t line = 1;
  for (std::size_t from = 0; from <= text.size(); ++line) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    if (!simdjson::validate_utf8(text.data() + from, end - from)) break;
    from = end + 1;
  }
  return std::string(file_name) + ":" + std::to_string(line) +
         ": not valid UTF-8 (a TOML file must be UTF-8)";
}

}  // namespace stallwatch::collector
