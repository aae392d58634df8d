// SPDX-License-Identifier: MIT
#pragma once

// Helpers for direct-mapped caches in front of exact lookups on short strings
// (event names and categories): a cheap, non-cryptographic hash of the length
// and the first and last eight bytes, and an inlined byte comparison. Both read
// only inside the strings, with fixed-size loads (no partial stores to reload).

#include <cstdint>
#include <cstring>
#include <string_view>

namespace stallwatch::collector::detail {

inline std::uint64_t load_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline std::uint32_t load_u32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The bytes of a string of at most 8 bytes as one word; for a given length,
// equal words mean equal strings.
inline std::uint64_t small_word(const char* p, std::size_t n) {
  if (n >= 4) return (std::uint64_t{load_u32(p)} << 32) | load_u32(p + n - 4);
  if (n == 0) return 0;
  const auto byte = [](char c) { return std::uint64_t{static_cast<unsigned char>(c)}; };
  return (byte(p[0]) << 16) | (byte(p[n / 2]) << 8) | byte(p[n - 1]);
}

inline std::uint64_t quick_hash(std::string_view s, std::uint64_t seed = 0) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  const std::size_t n = s.size();
  const std::uint64_t head = n >= 8 ? load_u64(s.data()) : small_word(s.data(), n);
  const std::uint64_t tail = n >= 8 ? load_u64(s.data() + n - 8) : 0;
  std::uint64_t h = (seed ^ n) * kMul;
  h = (h ^ head) * kMul;
  h = (h ^ tail) * kMul;
  return h ^ (h >> 29);
}

// a == b, without a library call for the common short strings.
inline bool same_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n <= 8) return small_word(a.data(), n) == small_word(b.data(), n);
  if (load_u64(a.data() + n - 8) != load_u64(b.data() + n - 8)) return false;
  if (n <= 16) return load_u64(a.data()) == load_u64(b.data());
  return std::memcmp(a.data(), b.data(), n - 8) == 0;
}

}  // namespace stallwatch::collector::detail
