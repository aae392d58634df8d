// SPDX-License-Identifier: MIT
#include "annotation_template.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <optional>

namespace stallwatch::collector {
namespace {

constexpr std::array<std::string_view, 13> kPlaceholders{
    "name",      "job",   "rank",    "scope", "metric",   "window", "value",
    "threshold", "clear", "verdict", "cause", "severity", "state"};

bool is_placeholder(std::string_view word) {
  for (auto p : kPlaceholders) {
    if (p == word) return true;
  }
  return false;
}

std::optional<std::string> field(std::string_view word, const TemplateFields& f) {
  if (word == "name") return std::string(f.name);
  if (word == "job") return std::string(f.job);
  if (word == "rank") return std::string(f.rank);
  if (word == "scope") return std::string(f.scope);
  if (word == "metric") return std::string(f.metric);
  if (word == "window") return std::string(f.window);
  if (word == "value") return format_alert_value(f.value);
  if (word == "threshold") return format_alert_value(f.threshold);
  if (word == "clear") return format_alert_value(f.clear);
  if (word == "verdict") return std::string(f.verdict);
  if (word == "cause") return std::string(f.cause);
  if (word == "severity") return std::string(f.severity);
  if (word == "state") return std::string(f.state);
  return std::nullopt;
}

// Calls on_text for literal runs and on_field for `{word}`; returns "" or the
// first problem.
template <typename OnText, typename OnField>
std::string scan(std::string_view text, OnText on_text, OnField on_field) {
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      const auto next = text.find_first_not_of(' ', i + 2);
      if (next != std::string_view::npos && (text[next] == '$' || text[next] == '.')) {
        return "Go template syntax ({{ $labels... }}) is not supported; write {rank}, {value}, ...";
      }
      on_text("{");
      i += 2;
    } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      on_text("}");
      i += 2;
    } else if (c == '{') {
      const auto close = text.find('}', i);
      if (close == std::string_view::npos) {
        return "unclosed '{' at offset " + std::to_string(i) + " (write {{ for a literal brace)";
      }
      const std::string_view word = text.substr(i + 1, close - i - 1);
      if (!is_placeholder(word)) {
        std::string known;
        for (auto p : kPlaceholders)
          known += (known.empty() ? "{" : ", {") + std::string(p) + "}";
        return "unknown placeholder '{" + std::string(word) + "}' (known: " + known + ")";
      }
      on_field(word);
      i = close + 1;
    } else if (c == '}') {
      return "unmatched '}' at offset " + std::to_string(i) + " (write }} for a literal brace)";
    } else {
      const auto next = text.find_first_of("{}", i);
      const std::size_t end = next == std::string_view::npos ? text.size() : next;
      on_text(text.substr(i, end - i));
      i = end;
    }
  }
  return {};
}

}  // namespace

std::string check_template(std::string_view text) {
  return scan(
      text, [](std::string_view) {}, [](std::string_view) {});
}

std::string render_template(std::string_view text, const TemplateFields& fields) {
  std::string out;
  out.reserve(text.size() + 32);
  const auto err = scan(
      text, [&](std::string_view s) { out.append(s); },
      [&](std::string_view word) {
        if (auto v = field(word, fields)) out.append(*v);
      });
  if (!err.empty()) return std::string(text);
  return out;
}

std::string format_alert_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

}  // namespace stallwatch::collector
