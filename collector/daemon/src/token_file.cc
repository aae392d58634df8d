// SPDX-License-Identifier: MIT
#include "token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stallwatch::collector {

namespace {

constexpr off_t kMaxTokenFileBytes = 64 << 10;

}  // namespace

bool read_token_file(const std::string& path, std::string& line, std::string& error) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok) {
    error = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    ok = false;
  } else if (st.st_size > kMaxTokenFileBytes) {
    error = "larger than 64 KiB";
    ok = false;
  }
  std::string text;
  if (ok) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = std::strerror(errno);
        ok = false;
        break;
      }
      if (n == 0) break;  // the file shrank meanwhile
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (!ok) return false;
  line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace stallwatch::collector
