// SPDX-License-Identifier: MIT
#include "path_filter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace stallwatch::posix {
namespace {

std::vector<std::string> split_prefixes(const char* list) {
  std::vector<std::string> prefixes;
  if (list == nullptr) return prefixes;
  std::string_view rest(list);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    std::string_view item = rest.substr(0, colon);
    while (item.size() > 1 && item.back() == '/')
      item.remove_suffix(1);
    if (!item.empty() && item.front() == '/') prefixes.emplace_back(item);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return prefixes;
}

bool under(std::string_view path, std::string_view prefix) noexcept {
  if (prefix == "/") return true;
  if (path.size() < prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

bool ends_with(std::string_view text, std::string_view suffix) noexcept {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool library_or_source(std::string_view path) noexcept {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return ends_with(name, ".so") || name.find(".so.") != std::string_view::npos ||
         ends_with(name, ".py") || ends_with(name, ".pyc") || name == "pyvenv.cfg" ||
         ends_with(name, "._pth");
}

}  // namespace

PathFilter::PathFilter(std::vector<std::string> include, std::vector<std::string> exclude)
    : include_(std::move(include)), exclude_(std::move(exclude)) {}

PathFilter PathFilter::from_environment() {
  std::vector<std::string> exclude = {
      "/proc",          "/sys", "/dev",   "/run",       "/usr/lib", "/usr/lib64",
      "/usr/local/lib", "/lib", "/lib64", "/usr/share", "/etc"};
  exclude.push_back("/tmp/stallwatch-" + std::to_string(getuid()));
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && runtime[0] == '/')
    exclude.push_back(std::string(runtime) + "/stallwatch");
  for (std::string& extra : split_prefixes(std::getenv("STALLWATCH_POSIX_EXCLUDE")))
    exclude.push_back(std::move(extra));
  return PathFilter(split_prefixes(std::getenv("STALLWATCH_POSIX_INCLUDE")), std::move(exclude));
}

bool PathFilter::traced(std::string_view absolute_path) const noexcept {
  if (library_or_source(absolute_path)) return false;
  for (const std::string& prefix : exclude_)
    if (under(absolute_path, prefix)) return false;
  if (include_.empty()) return true;
  for (const std::string& prefix : include_)
    if (under(absolute_path, prefix)) return true;
  return false;
}

bool absolute_path(int dirfd, const char* path, char* out, std::size_t size) noexcept {
  const std::size_t length = std::strlen(path);
  if (path[0] == '/') {
    if (length + 1 > size) return false;
    std::memcpy(out, path, length + 1);
    return true;
  }
  std::size_t base = 0;
  if (dirfd == AT_FDCWD) {
    if (getcwd(out, size) == nullptr) return false;
    base = std::strlen(out);
  } else {
    char link[32];
    std::snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
    const ssize_t n = readlink(link, out, size - 1);
    if (n <= 0) return false;
    base = static_cast<std::size_t>(n);
  }
  const char* rest = path;
  while (rest[0] == '.' && rest[1] == '/')
    rest += 2;
  const std::size_t rest_length = std::strlen(rest);
  if (base + 1 + rest_length + 1 > size) return false;
  if (base == 0 || out[base - 1] != '/') out[base++] = '/';
  std::memcpy(out + base, rest, rest_length + 1);
  if (rest_length == 0 || (rest[0] == '.' && rest[1] == '\0')) {
    out[base > 1 ? base - 1 : base] = '\0';
  }
  return true;
}

}  // namespace stallwatch::posix
