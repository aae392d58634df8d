// SPDX-License-Identifier: MIT
#pragma once

// Word-at-a-time helpers of the dftracer line scanner (dftracer_scanner.h):
// 8-byte loads, digit runs and their values, byte-class tables, and JSON keys
// packed as masked little-endian words. Callers guarantee that an 8-byte load
// stays inside their buffer (the reader's kScanPadding).

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace stallwatch::collector::detail::word_scan {

static_assert(std::endian::native == std::endian::little, "the word tricks below assume it");

inline std::uint64_t load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// What may follow a scalar value: ',', '}', ']', ' ', '\t'.
inline constexpr auto kDelimiter = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view(",}] \t"))
    table[static_cast<unsigned char>(c)] = true;
  return table;
}();

inline bool is_delimiter(char c) {
  return kDelimiter[static_cast<unsigned char>(c)];
}

inline bool is_digit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Characters that may appear in a JSON number.
inline constexpr auto kNumberChar = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view("0123456789+-.eE"))
    table[static_cast<unsigned char>(c)] = true;
  return table;
}();

inline constexpr std::uint64_t kZeros = 0x3030303030303030ULL;

// How many of the 8 bytes of `w` (in memory order) are ASCII digits before
// the first one that is not.
inline unsigned digit_run(std::uint64_t w) {
  const std::uint64_t flags = ((w + 0x4646464646464646ULL) | (w - kZeros)) & 0x8080808080808080ULL;
  return flags == 0 ? 8u : static_cast<unsigned>(std::countr_zero(flags)) / 8u;
}

// The value of the first `n` (1..8) digits of `w`.
inline std::uint64_t digits_value(std::uint64_t w, unsigned n) {
  if (n < 8) w = (w << (8 * (8 - n))) | (kZeros >> (8 * n));
  w -= kZeros;
  w = (w * 10) + (w >> 8);
  w = (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
       (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
      32;
  return static_cast<std::uint32_t>(w);
}

inline constexpr std::uint64_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                            100000, 1000000, 10000000, 100000000};

// A key and its closing quote as a little-endian word, and the mask of its bytes.
struct KeyWord {
  std::uint64_t word = 0;
  std::uint64_t mask = 0;
  unsigned length = 0;  // without the quote
};

template <std::size_t N>
inline constexpr KeyWord key_word(const char (&key)[N]) {
  static_assert(N >= 2 && N <= 8, "keys of 1..7 characters");
  KeyWord k;
  for (std::size_t i = 0; i < N - 1; ++i)
    k.word |= static_cast<std::uint64_t>(static_cast<unsigned char>(key[i])) << (8 * i);
  k.word |= static_cast<std::uint64_t>('"') << (8 * (N - 1));
  k.mask = N == 8 ? ~0ULL : (1ULL << (8 * N)) - 1;
  k.length = N - 1;
  return k;
}

inline constexpr KeyWord kName = key_word("name");
inline constexpr KeyWord kCat = key_word("cat");
inline constexpr KeyWord kPid = key_word("pid");
inline constexpr KeyWord kTid = key_word("tid");
inline constexpr KeyWord kTs = key_word("ts");
inline constexpr KeyWord kDur = key_word("dur");
inline constexpr KeyWord kPh = key_word("ph");
inline constexpr KeyWord kArgs = key_word("args");

}  // namespace stallwatch::collector::detail::word_scan
