// SPDX-License-Identifier: MIT
#include "line_reader.h"

#include <algorithm>
#include <cstring>

namespace stallwatch::collector {

LineReader::LineReader(InputFile& file, std::size_t chunk_bytes, std::size_t max_line_bytes)
    : file_(file),
      max_line_bytes_(std::max(max_line_bytes, chunk_bytes)),
      chunk_bytes_(chunk_bytes),
      buffer_(std::min(chunk_bytes, kFirstChunk) + kLinePadding, ' '),
      capacity_(std::min(chunk_bytes, kFirstChunk)) {}

bool LineReader::refill() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_ || (capacity_ < chunk_bytes_ && last_read_filled_)) {
    // Small files stay in the first, small buffer; a file that filled it
    // grows it to the chunk size, and a line that fills it grows it further.
    if (end_ == capacity_ && capacity_ >= max_line_bytes_) return false;  // caller skips the line
    capacity_ = std::min(capacity_ * 2, end_ == capacity_ ? max_line_bytes_ : chunk_bytes_);
    buffer_.resize(capacity_ + kLinePadding, ' ');
  }
  const std::ptrdiff_t n = file_.read(buffer_.data() + end_, capacity_ - end_);
  if (n < 0) {
    error_ = file_.error();
    eof_ = true;
    return true;
  }
  last_read_filled_ = static_cast<std::size_t>(n) == capacity_ - end_;
  if (n == 0) eof_ = true;
  end_ += static_cast<std::size_t>(n);
  return true;
}

bool LineReader::next(Line& line) {
  for (;;) {
    const char* base = buffer_.data();
    const void* nl = end_ > begin_ ? std::memchr(base + begin_, '\n', end_ - begin_) : nullptr;
    if (nl != nullptr) {
      const auto pos = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      const std::uint64_t offset = consumed_;
      const std::size_t start = begin_;
      consumed_ += pos + 1 - begin_;
      begin_ = pos + 1;
      ++line_number_;
      if (skipping_) {
        skipping_ = false;
        continue;
      }
      std::size_t len = pos - start;
      if (len > 0 && base[start + len - 1] == '\r') --len;
      line.text = std::string_view(base + start, len);
      line.number = line_number_;
      line.offset = offset;
      return true;
    }
    if (eof_) {
      if (begin_ == end_ || !error_.empty()) return false;
      const std::uint64_t offset = consumed_;
      const std::size_t start = begin_;
      consumed_ += end_ - begin_;
      begin_ = end_;
      ++line_number_;
      if (skipping_) return false;
      line.text = std::string_view(base + start, end_ - start);
      line.number = line_number_;
      line.offset = offset;
      return true;
    }
    if (!refill()) {
      // Longer than max_line_bytes: drop what we have and skip to the next newline.
      if (!skipping_) ++skipped_long_lines_;
      skipping_ = true;
      consumed_ += end_ - begin_;
      begin_ = end_ = 0;
      refill();
    }
  }
}

}  // namespace stallwatch::collector
