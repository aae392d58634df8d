// SPDX-License-Identifier: MIT
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace stallwatch::collector {

// A streaming JSON writer that appends to a caller-owned string: no DOM, no
// allocation beyond the output's growth. Commas are placed automatically;
// the caller is responsible for balanced begin/end calls and for calling
// key() exactly once before each member value.
//
// Numbers: doubles in the shortest form that round-trips, NaN and infinities
// as null. Strings are escaped and invalid UTF-8 is replaced by U+FFFD.
// Not thread-safe; one writer per output.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();

  // `name` is written as is: for the server's own ASCII field names.
  JsonWriter& key(std::string_view name);
  // For names that come from outside (labels, job ids): escaped.
  JsonWriter& escaped_key(std::string_view name);

  JsonWriter& string(std::string_view text);
  JsonWriter& number(double v);
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& integer(T v) {
    separate();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
    return *this;
  }
  JsonWriter& boolean(bool v);
  JsonWriter& null();
  // An already serialized JSON value, inserted verbatim.
  JsonWriter& raw(std::string_view json);

 private:
  void separate() {
    if (need_comma_) out_.push_back(',');
    need_comma_ = true;
  }

  std::string& out_;
  bool need_comma_ = false;
};

}  // namespace stallwatch::collector
