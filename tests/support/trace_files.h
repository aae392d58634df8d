// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace stallwatch::collector::testing {

// A fresh directory under $TMPDIR, removed with its files on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to <dir>/<name> (gzip-compressed when `gzip`); returns the path.
  std::string write(std::string_view name, std::string_view content, bool gzip = false) const;

 private:
  std::string path_;
};

// Path of a file under tests/data.
std::string test_data(std::string_view relative);

}  // namespace stallwatch::collector::testing
