// SPDX-License-Identifier: MIT
#include "traces/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace stallwatch::collector {

TextTable::TextTable(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void TextTable::row(std::vector<std::string> cells) {
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out, std::string_view indent) const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t c = 0; c < r.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows_) {
    std::string line(indent);
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - r[c].size(), ' ');
      if (c > 0) line += "  ";
      line += c == 0 ? r[c] + pad : pad + r[c];
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out << line << "\n";
  }
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string seconds_from_ns(std::int64_t ns) {
  return fixed(static_cast<double>(ns) / 1e9, 3);
}

std::string micros_from_ns(std::int64_t ns) {
  if (ns % 1000 == 0) return std::to_string(ns / 1000);
  return fixed(static_cast<double>(ns) / 1e3, 3);
}

}  // namespace stallwatch::collector
