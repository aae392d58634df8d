// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector {

// Appends families and samples of the Prometheus text format 0.0.4 to a
// string: HELP (escaped) and TYPE lines, then samples whose label sets come
// pre-escaped (make them with append_label), values written as the shortest
// decimal that reads back exactly, NaN and ±Inf spelled the format's way.
// Does not check that a family's samples stay together: the caller writes
// each family's block at once. Single-threaded; the string is the caller's.
class Exposition {
 public:
  explicit Exposition(std::string& out) : out_(out) {}

  void family(std::string_view name, std::string_view type, std::string_view help);

  // `labels` is `a="x",b="y"` (may be empty); `extra` one more label set or empty.
  void sample(std::string_view name, std::string_view labels, std::string_view extra, double value);
  void sample(std::string_view name, std::string_view labels, double value) {
    sample(name, labels, {}, value);
  }

 private:
  void append_value(double v);

  std::string& out_;
};

// Appends `name="value"` to a label set, escaping the value, with a comma
// when the set is not empty.
void append_label(std::string& out, std::string_view name, std::string_view value);
// One label as a set of its own.
std::string label(std::string_view name, std::string_view value);

}  // namespace stallwatch::collector
