// SPDX-License-Identifier: MIT
#include "serve/json_writer.h"

#include <cmath>

#include "text_escape.h"

namespace stallwatch::collector {

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_.push_back('{');
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_.push_back('}');
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_.push_back('[');
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_.push_back(']');
  need_comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  out_.push_back('"');
  out_.append(name);
  out_.append("\":");
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::escaped_key(std::string_view name) {
  separate();
  out_.push_back('"');
  append_json_escaped(out_, name);
  out_.append("\":");
  need_comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  separate();
  out_.push_back('"');
  append_json_escaped(out_, text);
  out_.push_back('"');
  return *this;
}

JsonWriter& JsonWriter::number(double v) {
  separate();
  if (!std::isfinite(v)) {
    out_.append("null");
    return *this;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool v) {
  separate();
  out_.append(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_.append("null");
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_.append(json);
  return *this;
}

}  // namespace stallwatch::collector
