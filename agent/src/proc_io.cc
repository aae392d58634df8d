// SPDX-License-Identifier: MIT
#include "proc_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace stallwatch::agent {
namespace {

bool field(const char* text, const char* key, std::int64_t* out) noexcept {
  const std::size_t key_length = std::strlen(key);
  for (const char* line = text; line != nullptr && *line != '\0';) {
    if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
      char* end = nullptr;
      const long long value = std::strtoll(line + key_length + 1, &end, 10);
      if (end == line + key_length + 1) return false;
      *out = value;
      return true;
    }
    line = std::strchr(line, '\n');
    if (line != nullptr) ++line;
  }
  return false;
}

}  // namespace

bool parse_proc_io(const char* text, ProcIo* out) noexcept {
  ProcIo io;
  if (!field(text, "rchar", &io.rchar) || !field(text, "read_bytes", &io.read_bytes)) return false;
  *out = io;
  return true;
}

bool read_proc_io(ProcIo* out) noexcept {
  const int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[512];
  const ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  return parse_proc_io(text, out);
}

}  // namespace stallwatch::agent
