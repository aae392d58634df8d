// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "input_file.h"

namespace stallwatch::collector {

// One line of a trace file, without its line terminator.
struct Line {
  std::string_view text;
  std::uint64_t number = 0;  // 1-based
  std::uint64_t offset = 0;  // byte offset of the line in the (inflated) file
};

// Splits an InputFile into lines through one reused buffer: memory is the
// chunk size (plus the longest line), never the file size. Every returned
// line is followed by at least kLinePadding readable bytes, so it can be handed
// to simdjson without a copy.
//
// Not thread-safe. Views are valid until the next call to next().
class LineReader {
 public:
  static constexpr std::size_t kLinePadding = 64;
  static constexpr std::size_t kFirstChunk = 64u << 10;

  explicit LineReader(InputFile& file, std::size_t chunk_bytes = 512u << 10,
                      std::size_t max_line_bytes = 64u << 20);

  // False at the end of the file or on a read error (then error() is set).
  bool next(Line& line);

  const std::string& error() const { return error_; }
  // How many lines longer than max_line_bytes were skipped.
  std::uint64_t skipped_long_lines() const { return skipped_long_lines_; }
  std::uint64_t bytes() const { return consumed_; }

 private:
  bool refill();

  InputFile& file_;
  std::size_t max_line_bytes_;
  std::size_t chunk_bytes_;
  std::vector<char> buffer_;
  std::size_t capacity_;  // usable bytes; buffer_ holds capacity_ + kLinePadding
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  bool last_read_filled_ = false;  // the file may hold more than the buffer
  bool skipping_ = false;
  std::uint64_t line_number_ = 0;
  std::uint64_t consumed_ = 0;
  std::uint64_t skipped_long_lines_ = 0;
  std::string error_;
};

}  // namespace stallwatch::collector
