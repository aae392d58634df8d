// SPDX-License-Identifier: MIT
#include "text_escape.h"

#include <array>
#include <cstdint>

namespace stallwatch::collector {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

std::uint8_t byte_at(std::string_view text, std::size_t i) {
  return static_cast<std::uint8_t>(text[i]);
}

bool continuation(std::uint8_t b) {
  return (b & 0xC0u) == 0x80u;
}

// Copies `text` to `out`, replacing invalid UTF-8, and calls `escape(out, c)`
// for ASCII bytes `c` that `needs_escape(c)` selects.
template <typename NeedsEscape, typename Escape>
void append_escaped(std::string& out, std::string_view text, NeedsEscape needs_escape,
                    Escape escape) {
  std::size_t run = 0;  // start of the bytes not yet copied
  std::size_t i = 0;
  while (i < text.size()) {
    const std::uint8_t b = byte_at(text, i);
    if (b < 0x80u) {
      if (needs_escape(b)) {
        out.append(text.substr(run, i - run));
        escape(out, b);
        run = i + 1;
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text.substr(i));
    if (n == 0) {
      out.append(text.substr(run, i - run));
      out.append(kReplacement);
      ++i;
      run = i;
    } else {
      i += n;
    }
  }
  out.append(text.substr(run));
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view text) {
  const std::uint8_t b0 = byte_at(text, 0);
  if (b0 < 0x80u) return 1;
  std::size_t n = 0;
  std::uint8_t lo = 0x80u;
  std::uint8_t hi = 0xBFu;
  if (b0 >= 0xC2u && b0 <= 0xDFu) {
    n = 2;
  } else if (b0 >= 0xE0u && b0 <= 0xEFu) {
    n = 3;
    if (b0 == 0xE0u) lo = 0xA0u;  // overlong
    if (b0 == 0xEDu) hi = 0x9Fu;  // UTF-16 surrogates
  } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
    n = 4;
    if (b0 == 0xF0u) lo = 0x90u;  // overlong
    if (b0 == 0xF4u) hi = 0x8Fu;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < n) return 0;
  const std::uint8_t b1 = byte_at(text, 1);
  if (b1 < lo || b1 > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (!continuation(byte_at(text, k))) return 0;
  }
  return n;
}

void append_json_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  append_escaped(
      out, text, [](std::uint8_t c) { return c < 0x20u || c == '"' || c == '\\' || c == 0x7Fu; },
      [](std::string& o, std::uint8_t c) {
        switch (c) {
          case '"':
            o.append("\\\"");
            return;
          case '\\':
            o.append("\\\\");
            return;
          case '\n':
            o.append("\\n");
            return;
          case '\r':
            o.append("\\r");
            return;
          case '\t':
            o.append("\\t");
            return;
          case '\b':
            o.append("\\b");
            return;
          case '\f':
            o.append("\\f");
            return;
          default: {
            const std::array<char, 6> u{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xFu]};
            o.append(u.data(), u.size());
          }
        }
      });
}

void append_label_escaped(std::string& out, std::string_view text) {
  append_escaped(
      out, text, [](std::uint8_t c) { return c == '\\' || c == '"' || c == '\n'; },
      [](std::string& o, std::uint8_t c) {
        o.push_back('\\');
        o.push_back(c == '\n' ? 'n' : static_cast<char>(c));
      });
}

void append_help_escaped(std::string& out, std::string_view text) {
  append_escaped(
      out, text, [](std::uint8_t c) { return c == '\\' || c == '\n'; },
      [](std::string& o, std::uint8_t c) {
        o.push_back('\\');
        o.push_back(c == '\n' ? 'n' : '\\');
      });
}

}  // namespace stallwatch::collector
