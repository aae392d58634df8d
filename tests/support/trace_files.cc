// SPDX-License-Identifier: MIT
#include "trace_files.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace stallwatch::collector::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/replay-test-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(std::string_view name, std::string_view content, bool gzip) const {
  const std::string file = path_ + "/" + std::string(name);
  if (gzip) {
    gzFile out = gzopen(file.c_str(), "wb");
    if (out == nullptr) throw std::runtime_error("gzopen failed");
    gzwrite(out, content.data(), static_cast<unsigned>(content.size()));
    gzclose(out);
  } else {
    std::ofstream out(file, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  return file;
}

std::string test_data(std::string_view relative) {
  return std::string(STALLWATCH_TEST_DATA_DIR) + "/" + std::string(relative);
}

}  // namespace stallwatch::collector::testing
