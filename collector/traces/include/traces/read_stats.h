// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallwatch::collector {

// One record a reader could not use, located for the user.
struct ReadProblem {
  std::string file;
  std::uint64_t line = 0;    // 1-based; 0 when the format has no lines
  std::uint64_t offset = 0;  // byte offset in the (inflated) file
  std::string message;
};

// What a reader saw in one file. Problems beyond kMaxKept are counted, not kept,
// so a file full of garbage cannot grow memory.
struct ReadStats {
  static constexpr std::size_t kMaxKept = 20;

  std::string file;
  std::uint64_t bytes = 0;       // inflated bytes read
  std::uint64_t disk_bytes = 0;  // bytes read from disk
  std::uint64_t records = 0;     // lines / array elements seen
  std::uint64_t events = 0;      // records turned into events
  std::uint64_t metadata = 0;    // metadata records consumed
  std::uint64_t aggregated = 0;  // dftracer aggregated records (not regions)
  std::uint64_t ignored = 0;     // well-formed records with nothing to analyze
  std::uint64_t malformed = 0;
  std::vector<ReadProblem> problems;

  void malformed_at(std::uint64_t line, std::uint64_t offset, std::string message) {
    ++malformed;
    if (problems.size() < kMaxKept) problems.push_back({file, line, offset, std::move(message)});
  }
};

// "trace.pfw:12: <message>" or "trace.json@1234: <message>".
std::string to_string(const ReadProblem& problem);

}  // namespace stallwatch::collector
