// SPDX-License-Identifier: MIT
#pragma once

// Reading the fields of a collector's JSON answers (api_parse.cc): a field
// of another type than expected reads as its default, and so does a number
// out of range.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace stallwatch::tui::api_fields {

using Json = nlohmann::json;

inline const Json* field(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

inline std::string text(const Json& object, const char* key) {
  const Json* f = field(object, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : std::string();
}

// Every number read from a collector: a collector never sends one outside
// +-2^62 (2^62 ns is 146 years), and the client subtracts times and converts
// doubles to integers for display, which such a value would overflow. One
// outside that range (or an integer out of its type's range) reads as
// absent.
inline constexpr double kLimit = 4611686018427387904.0;  // 2^62

inline std::optional<double> number_value(const Json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!(d >= -kLimit && d <= kLimit)) return std::nullopt;  // NaN and infinities too
  return d;
}

inline std::optional<std::int64_t> int64_value(const Json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < -static_cast<std::int64_t>(kLimit) || i > static_cast<std::int64_t>(kLimit))
      return std::nullopt;
    return i;
  }
  if (const auto d = number_value(v)) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

inline std::optional<double> number(const Json& object, std::string_view key) {
  const Json* f = field(object, key);
  return f == nullptr ? std::nullopt : number_value(*f);
}

inline std::int64_t int64(const Json& object, const char* key, std::int64_t fallback = 0) {
  const Json* f = field(object, key);
  if (f == nullptr) return fallback;
  return int64_value(*f).value_or(fallback);
}

inline std::uint64_t uint64(const Json& object, std::string_view key) {
  const Json* f = field(object, key);
  if (f == nullptr) return 0;
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, int64_value(*f).value_or(0)));
}

inline std::optional<std::int32_t> optional_int(const Json& object, const char* key) {
  const Json* f = field(object, key);
  if (f == nullptr || !f->is_number_integer()) return std::nullopt;
  const auto v = int64_value(*f);
  if (!v || *v < std::numeric_limits<std::int32_t>::min() ||
      *v > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*v);
}

inline const Json& array_or_empty(const Json& object, const char* key) {
  static const Json kEmpty = Json::array();
  const Json* f = field(object, key);
  return f != nullptr && f->is_array() ? *f : kEmpty;
}

}  // namespace stallwatch::tui::api_fields
