// SPDX-License-Identifier: MIT
#include "exposition.h"

#include <charconv>
#include <cmath>

#include "text_escape.h"

namespace stallwatch::collector {

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  out_.append("# HELP ").append(name).push_back(' ');
  append_help_escaped(out_, help);
  out_.append("\n# TYPE ").append(name).push_back(' ');
  out_.append(type).push_back('\n');
}

void Exposition::sample(std::string_view name, std::string_view labels, std::string_view extra,
                        double value) {
  out_.append(name);
  if (!labels.empty() || !extra.empty()) {
    out_.push_back('{');
    out_.append(labels);
    if (!labels.empty() && !extra.empty()) out_.push_back(',');
    out_.append(extra);
    out_.push_back('}');
  }
  out_.push_back(' ');
  append_value(value);
  out_.push_back('\n');
}

void Exposition::append_value(double v) {
  if (std::isnan(v)) {
    out_.append("NaN");
  } else if (std::isinf(v)) {
    out_.append(v > 0 ? "+Inf" : "-Inf");
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
}

void append_label(std::string& out, std::string_view name, std::string_view value) {
  if (!out.empty()) out.push_back(',');
  out.append(name).append("=\"");
  append_label_escaped(out, value);
  out.push_back('"');
}

std::string label(std::string_view name, std::string_view value) {
  std::string out;
  append_label(out, name, value);
  return out;
}

}  // namespace stallwatch::collector
