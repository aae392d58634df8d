// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::collector {

// A plain-text table: the first column left-aligned, the others right-aligned,
// each as wide as its widest cell. Builds in memory; prints once.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void row(std::vector<std::string> cells);
  void print(std::ostream& out, std::string_view indent = "  ") const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Fixed-point formatting helpers for reports.
std::string fixed(double value, int decimals);  // "-" for NaN
std::string seconds_from_ns(std::int64_t ns);   // "272.356"
std::string micros_from_ns(std::int64_t ns);    // "10113" or "10113.5"

}  // namespace stallwatch::collector
