// SPDX-License-Identifier: MIT
#include "prometheus_samples.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stallwatch::test {
namespace {

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)) != 0);
}

// Parses `name{a="x",b="y"} value [timestamp]`.
bool parse_line(const std::string& line, PromSample& out) {
  std::size_t i = 0;
  while (i < line.size() && name_char(line[i], i == 0))
    ++i;
  if (i == 0) return false;
  out.name = line.substr(0, i);
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const std::size_t start = i;
      while (i < line.size() && name_char(line[i], i == start))
        ++i;
      if (i == start || i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') return false;
      const std::string key = line.substr(start, i - start);
      i += 2;
      std::string value;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) {
          const char e = line[++i];
          value.push_back(e == 'n' ? '\n' : e);
        } else {
          value.push_back(line[i]);
        }
        ++i;
      }
      if (i >= line.size()) return false;
      ++i;
      out.labels[key] = value;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;
  }
  if (i >= line.size() || line[i] != ' ') return false;
  std::istringstream rest(line.substr(i + 1));
  std::string value;
  rest >> value;
  if (value == "NaN") {
    out.value = std::nan("");
  } else if (value == "+Inf" || value == "-Inf") {
    out.value = value[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  } else {
    char* end = nullptr;
    out.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<PromSample>> parse_prometheus(const std::string& text,
                                                        std::string* error) {
  std::vector<PromSample> samples;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
      if (error != nullptr) *error = line;
      return std::nullopt;
    }
    PromSample sample;
    if (!parse_line(line, sample)) {
      if (error != nullptr) *error = line;
      return std::nullopt;
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::optional<double> find_sample(const std::vector<PromSample>& samples, const std::string& name,
                                  const std::map<std::string, std::string>& labels) {
  std::optional<double> found;
  for (const PromSample& s : samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [key, value] : labels) {
      const auto it = s.labels.find(key);
      match = match && it != s.labels.end() && it->second == value;
    }
    if (!match) continue;
    if (found) return std::nullopt;  // ambiguous
    found = s.value;
  }
  return found;
}

std::string promtool_complaints(const std::string& text, const std::string& scratch_dir) {
  const std::string promtool = STALLWATCH_PROMTOOL;
  if (promtool.empty()) return {};
  const std::string path = scratch_dir + "/metrics.txt";
  std::ofstream(path) << text;
  const std::string command = promtool + " check metrics < " + path + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot run " + promtool;
  std::string output;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr)
    output += buf;
  const int status = ::pclose(pipe);
  return status == 0 ? std::string() : output.empty() ? "promtool failed" : output;
}

}  // namespace stallwatch::test
