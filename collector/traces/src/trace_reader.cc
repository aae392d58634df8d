// SPDX-License-Identifier: MIT
#include "traces/trace_reader.h"

#include <regex>

#include "dftracer_reader.h"
#include "kineto_reader.h"

namespace stallwatch::collector {

namespace {

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Looks at the first inflated bytes: a Chrome "[" array or JSON lines with a
// "ph" are dftracer; a document starting with '{' that is not one complete
// object per line is Kineto.
bool sniff_dftracer(InputFile& file) {
  std::string head(64 * 1024, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    const std::ptrdiff_t n = file.read(head.data() + got, head.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  head.resize(got);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return true;
  if (head[first] == '[') return true;
  const auto eol = head.find('\n', first);
  const std::string_view line = std::string_view(head).substr(
      first, eol == std::string::npos ? std::string::npos : eol - first);
  const auto last = line.find_last_not_of(" \t\r,");
  return last != std::string_view::npos && line[last] == '}' &&
         line.find("\"ph\"") != std::string_view::npos &&
         line.find("\"traceEvents\"") == std::string_view::npos;
}

}  // namespace

std::string to_string(const ReadProblem& problem) {
  std::string out = problem.file;
  if (problem.line > 0) {
    out.append(":").append(std::to_string(problem.line));
  } else {
    out.append(" (byte ").append(std::to_string(problem.offset)).append(")");
  }
  out.append(": ").append(problem.message);
  return out;
}

std::int64_t rank_from_file_name(const std::string& path, std::int64_t* world_size) {
  static const std::regex of_pattern(R"((\d+)-of-(\d+))");
  static const std::regex rank_pattern(R"(rank[-_]?(\d+))", std::regex::icase);
  const std::string name = base_name(path);
  std::smatch m;
  if (std::regex_search(name, m, of_pattern)) {
    if (world_size != nullptr) *world_size = std::stoll(m[2].str());
    return std::stoll(m[1].str());
  }
  if (std::regex_search(name, m, rank_pattern)) return std::stoll(m[1].str());
  return -1;
}

std::unique_ptr<TraceReader> open_trace_reader(const std::string& path, std::string& error) {
  TraceFileInfo info;
  info.path = path;
  bool dftracer = has_suffix(path, ".pfw") || has_suffix(path, ".pfw.gz");
  if (!dftracer) {
    auto probe = InputFile::open(path, error);
    if (!probe) return nullptr;
    dftracer = sniff_dftracer(*probe);
    if (!probe->error().empty()) {
      error = probe->error();
      return nullptr;
    }
  }
  auto file = InputFile::open(path, error);
  if (!file) return nullptr;
  if (dftracer) {
    info.format = TraceFormat::kDftracer;
    info.rank = rank_from_file_name(path, &info.world_size);
    return std::make_unique<DftracerReader>(std::move(file), std::move(info));
  }
  info.format = TraceFormat::kKineto;
  return std::make_unique<KinetoReader>(std::move(file), std::move(info));
}

}  // namespace stallwatch::collector
