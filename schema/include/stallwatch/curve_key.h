// SPDX-License-Identifier: MIT
#pragma once

// CURVE keys as text, the same for the agent and the collector
// (docs/design.md, "CURVE"): a key is 40 characters of Z85 (ZeroMQ's
// encoding of 32 bytes). A key file holds one key as the first word of a
// line; lines starting with "#" and words after the key are comments. The
// daemon's and an agent's secret key files, a public key file given to
// agents and an allow-list (one key per line) all follow this.

#include <cstddef>
#include <string_view>

namespace stallwatch::wire {

inline constexpr std::size_t kZ85KeyChars = 40;
inline constexpr std::size_t kCurveKeyBytes = 32;

// True when `text` is exactly 40 characters of the Z85 alphabet.
constexpr bool is_z85_key(std::string_view text) {
  constexpr std::string_view kAlphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  if (text.size() != kZ85KeyChars) return false;
  for (char c : text) {
    if (kAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// The first word of `line` (leading and trailing blanks ignored): what a key
// file's line holds as its key when is_z85_key() says so.
constexpr std::string_view first_word(std::string_view line) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const std::size_t begin = line.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  const std::size_t end = line.find_first_of(kBlanks, begin);
  return line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// The key of a key file's text: the first line whose first word is a Z85
// key; empty when no line has one.
constexpr std::string_view key_in_text(std::string_view text) {
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view word = first_word(text.substr(0, newline));
    if (is_z85_key(word)) return word;
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return {};
}

}  // namespace stallwatch::wire
