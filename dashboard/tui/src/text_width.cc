// SPDX-License-Identifier: MIT
#include "text_width.h"

#include <locale.h>
#include <wchar.h>

#include <array>
#include <cstdint>
#include <utility>

namespace stallwatch::tui {
namespace {

constexpr char32_t kInvalid = 0xFFFFFFFF;

// Decodes one UTF-8 character at `i` and advances past it; kInvalid (and one
// byte) for a malformed sequence.
char32_t decode(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  int length = 0;
  char32_t cp = 0;
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    cp = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    cp = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    cp = lead & 0x07;
  } else {
    ++i;
    return kInvalid;
  }
  if (i + static_cast<std::size_t>(length) > s.size()) {
    ++i;
    return kInvalid;
  }
  for (int k = 1; k < length; ++k) {
    const unsigned char c = byte(i + static_cast<std::size_t>(k));
    if ((c & 0xC0) != 0x80) {
      ++i;
      return kInvalid;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  constexpr std::array<char32_t, 5> kMinimum{0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[static_cast<std::size_t>(length)] || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kInvalid;
  }
  i += static_cast<std::size_t>(length);
  return cp;
}

// The C library's wcwidth(3) under the built-in C.UTF-8 locale, whatever the
// process's own locale is (a terminal dashboard started under LANG=C still
// draws UTF-8). Unprintable code points and malformed bytes count as one
// column: sanitize() replaces them before anything is drawn.
int char_width(char32_t cp) {
  if (cp == kInvalid) return 1;
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
  if (utf8 == locale_t{}) return 1;
  const locale_t previous = uselocale(utf8);
  const int width = wcwidth(static_cast<wchar_t>(cp));
  uselocale(previous);
  return width < 0 ? 1 : width;
}

char ascii_for(char32_t cp) {
  if (cp >= 0x2581 && cp <= 0x2588) return "_.-:=+*#"[cp - 0x2581];
  if (cp >= 0x2589 && cp <= 0x258F) return '+';
  switch (cp) {
    case 0x2014:
    case 0x2013:
    case 0x2500:
      return '-';
    case 0x2026:
      return '~';
    case 0x00B5:
      return 'u';
    case 0x00B7:
      return '.';
    case 0x2191:
      return '^';
    case 0x2193:
      return 'v';
    case 0x2190:
    case 0x2039:
      return '<';
    case 0x2192:
    case 0x203A:
      return '>';
    case 0x25CF:
      return '*';
    case 0x2502:
      return '|';
    case 0x2265:
      return '>';
    case 0x2591:
      return '.';
    default:
      return '?';
  }
}

}  // namespace

int display_width(std::string_view text) {
  int width = 0;
  for (std::size_t i = 0; i < text.size();)
    width += char_width(decode(text, i));
  return width;
}

std::string clip(std::string_view text, int width) {
  std::string out;
  int used = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const int w = char_width(decode(text, i));
    if (used + w > width) break;
    out.append(text.substr(start, i - start));
    used += w;
  }
  return out;
}

std::string fit(std::string_view text, int width, Align align) {
  if (width <= 0) return {};
  const int w = display_width(text);
  if (w <= width) {
    const std::string pad(static_cast<std::size_t>(width - w), ' ');
    return align == Align::kLeft ? std::string(text) + pad : pad + std::string(text);
  }
  std::string out = clip(text, width - 1);
  out.append(static_cast<std::size_t>(width - 1 - display_width(out)), ' ');
  out.append("…");
  return out;
}

std::string sanitize(std::string_view untrusted) {
  std::string out;
  out.reserve(untrusted.size());
  for (std::size_t i = 0; i < untrusted.size();) {
    const std::size_t start = i;
    const char32_t cp = decode(untrusted, i);
    const bool control = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == kInvalid;
    if (control) {
      out.push_back('?');
    } else {
      out.append(untrusted.substr(start, i - start));
    }
  }
  return out;
}

std::string to_ascii(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char32_t cp = decode(text, i);
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
      continue;
    }
    const int w = char_width(cp);
    if (w == 0) continue;
    out.push_back(ascii_for(cp));
    if (w == 2) out.push_back('?');
  }
  return out;
}

}  // namespace stallwatch::tui
