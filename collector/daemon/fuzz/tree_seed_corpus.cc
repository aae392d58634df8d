// SPDX-License-Identifier: MIT
// Writes the seed corpus of tree_report_fuzz (tree_fuzz_seeds.h), a file per
// seed. Usage: tree_fuzz_seeds DIR (created if missing).

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tree_fuzz_seeds.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tree_fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const auto& [name, frames] : stallwatch::collector::fuzz::tree_fuzz_seeds()) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    for (const auto& frame : frames) {
      out.write(reinterpret_cast<const char*>(frame.data()),
                static_cast<std::streamsize>(frame.size()));
    }
    if (!out) {
      std::fprintf(stderr, "tree_fuzz_seeds: cannot write %s\n", (dir / name).c_str());
      return 1;
    }
  }
  return 0;
}
