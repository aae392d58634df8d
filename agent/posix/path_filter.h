// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stallwatch::posix {

// Decides at open time whether a file is data the capture traces, from its
// absolute path: under one of the include prefixes (all paths when none is
// given) and under none of the exclude prefixes, and not a shared library or
// one of Python's own files (*.so, *.so.N, *.py, *.pyc, pyvenv.cfg, *._pth).
//
// Default excludes: /proc, /sys, /dev, /run, the agent's own socket
// directories (/tmp/stallwatch-<uid>, $XDG_RUNTIME_DIR/stallwatch) and the
// system library trees (/usr/lib, /usr/lib64, /lib, /lib64, /usr/local/lib,
// /usr/share, /etc). STALLWATCH_POSIX_INCLUDE and STALLWATCH_POSIX_EXCLUDE
// (colon-separated prefixes) add to them; `python -m stallwatch.run --posix`
// excludes the Python installation this way. A prefix matches whole path
// components: /data matches /data and /data/x, not /database.
// Built once, then read-only: any thread.
class PathFilter {
 public:
  static PathFilter from_environment();
  PathFilter(std::vector<std::string> include, std::vector<std::string> exclude);

  bool traced(std::string_view absolute_path) const noexcept;

 private:
  std::vector<std::string> include_;
  std::vector<std::string> exclude_;
};

// `path` resolved against the working directory (dirfd AT_FDCWD) or the
// directory open on `dirfd`, into `out` (NUL terminated). Lexical only (no
// symlinks, no ".." folding). False when it does not fit or cannot be resolved.
bool absolute_path(int dirfd, const char* path, char* out, std::size_t size) noexcept;

}  // namespace stallwatch::posix
