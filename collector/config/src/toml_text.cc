// SPDX-License-Identifier: MIT
#include "config/toml_text.h"

#include <simdjson.h>

#include <cctype>

namespace stallwatch::collector {

namespace {

// Index of the last character of the string that opens at text[open] with
// `quote` (" basic, ' literal; tripled: multi-line), or text.size() when it
// does not close. A single-line string stops before a newline (the caller
// counts it); `line` counts the newlines inside a multi-line one. Up to two
// quotes right before a multi-line closing delimiter belong to the string.
std::size_t skip_string(std::string_view text, std::size_t open, char quote, std::size_t& line) {
  const bool escapes = quote == '"';
  const bool multi = text.size() - open >= 3 && text[open + 1] == quote && text[open + 2] == quote;
  for (std::size_t i = open + (multi ? 3 : 1); i < text.size(); ++i) {
    const char c = text[i];
    if (escapes && c == '\\') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
      ++i;
    } else if (c == '\n') {
      if (!multi) return i - 1;
      ++line;
    } else if (c == quote) {
      if (!multi) return i;
      if (i + 2 < text.size() && text[i + 1] == quote && text[i + 2] == quote) {
        i += 2;
        for (int extra = 0; extra < 2 && i + 1 < text.size() && text[i + 1] == quote; ++extra)
          ++i;
        return i;
      }
    }
  }
  return text.size();
}

}  // namespace

std::string check_toml_text(std::string_view text, std::string_view file_name) {
  if (auto err = check_toml_utf8(text, file_name); !err.empty()) return err;
  return check_toml_nesting(text, file_name);
}

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

std::string check_toml_nesting(std::string_view text, std::string_view file_name) {
  int depth = 0;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case '\n':
        ++line;
        break;
      case '#':  // a comment, to the end of its line
        while (i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
        break;
      case '"':
      case '\'':
        i = skip_string(text, i, text[i], line);
        break;
      case '0': {
        // toml11 (3.7) doubles an int64 once per binary digit, the last
        // digit's too: the 63rd (leading zeros count) makes it 2^63, which
        // overflows (undefined), even where the value would fit.
        const bool starts =
            i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                        text[i - 1] == '_' || text[i - 1] == '-' || text[i - 1] == '.');
        if (!starts || i + 1 >= text.size() || text[i + 1] != 'b') break;
        int digits = 0;
        std::size_t j = i + 2;
        for (; j < text.size() && (text[j] == '0' || text[j] == '1' || text[j] == '_'); ++j)
          digits += text[j] == '_' ? 0 : 1;
        if (digits > 62) {
          return std::string(file_name) + ":" + std::to_string(line) +
                 ": a binary integer with more than 62 digits";
        }
        i = j - 1;
        break;
      }
      case '[':
      case '{':
        if (++depth > kMaxTomlNesting) {
          return std::string(file_name) + ":" + std::to_string(line) +
                 ": arrays and inline tables nested more than " + std::to_string(kMaxTomlNesting) +
                 " deep";
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return {};
}

}  // namespace stallwatch::collector
