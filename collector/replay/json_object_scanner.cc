#include "replay/json_object_scanner.h"

#include <algorithm>
#include <cstring>

namespace stallwatch::collector {

namespace {
bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
bool ends_scalar(char c) {
  return c == ',' || c == '}' || c == ']' || is_ws(c);
}
}  // namespace

JsonObjectScanner::JsonObjectScanner(InputFile& file, std::string array_key,
                                     std::size_t chunk_bytes, std::size_t max_item_bytes)
    : file_(file),
      array_key_(std::move(array_key)),
      max_item_bytes_(std::max(max_item_bytes, chunk_bytes)),
      chunk_bytes_(chunk_bytes),
      buffer_(std::min(chunk_bytes, kFirstChunk) + kPadding, ' '),
      capacity_(std::min(chunk_bytes, kFirstChunk)) {}

JsonObjectScanner::Item JsonObjectScanner::fail(std::string message) {
  error_ = std::move(message);
  state_ = State::kDone;
  return Item::kError;
}

bool JsonObjectScanner::more() {
  if (keep_from_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + keep_from_, end_ - keep_from_);
    consumed_base_ += keep_from_;
    pos_ -= keep_from_;
    end_ -= keep_from_;
    keep_from_ = 0;
  }
  if (eof_) return false;
  if (end_ == capacity_ || capacity_ < chunk_bytes_) {
    // Small files (and the first look at big ones) stay in a small buffer.
    if (end_ == capacity_ && capacity_ >= max_item_bytes_) {
      error_ = "a JSON value is larger than " + std::to_string(max_item_bytes_ >> 20) + " MiB";
      return false;
    }
    capacity_ = std::min(capacity_ * 2, end_ == capacity_ ? max_item_bytes_ : chunk_bytes_);
    buffer_.resize(capacity_ + kPadding, ' ');
  }
  const std::ptrdiff_t n = file_.read(buffer_.data() + end_, capacity_ - end_);
  if (n < 0) {
    error_ = file_.error();
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  return true;
}

bool JsonObjectScanner::peek(char& c, bool skip_ws) {
  for (;;) {
    while (pos_ < end_) {
      c = buffer_[pos_];
      if (!skip_ws || !is_ws(c)) return true;
      ++pos_;
    }
    keep_from_ = pos_;
    if (!more()) return false;
  }
}

// `start` indexes the opening quote; on success `end` indexes the closing one.
// Indices are relative to keep_from_, which more() moves to 0.
bool JsonObjectScanner::scan_string(std::size_t start, std::size_t& end) {
  std::size_t i = start + 1;
  for (;;) {
    const char* base = buffer_.data();
    const void* q = i < end_ ? std::memchr(base + i, '"', end_ - i) : nullptr;
    if (q != nullptr) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(q) - base);
      std::size_t backslashes = 0;
      while (at - backslashes > start + 1 && base[at - backslashes - 1] == '\\')
        ++backslashes;
      if (backslashes % 2 == 0) {
        end = at;
        return true;
      }
      i = at + 1;
      continue;
    }
    const std::size_t shift = keep_from_;
    i = end_;
    if (!more()) return false;
    i -= shift;
    start -= shift;
  }
}

bool JsonObjectScanner::scan_value(std::size_t& end) {
  const std::size_t start = pos_;  // == keep_from_
  char c = buffer_[start];
  if (c == '"') {
    std::size_t close = 0;
    if (!scan_string(pos_, close)) return false;
    end = close + 1;
    return true;
  }
  if (c != '{' && c != '[') {
    std::size_t i = start;
    for (;;) {
      while (i < end_ && !ends_scalar(buffer_[i]))
        ++i;
      if (i < end_) break;
      const std::size_t shift = keep_from_;
      const bool got = more();
      i -= shift;
      if (!got) {
        if (!error_.empty()) return false;
        break;  // a scalar may end the input
      }
    }
    end = i;
    return true;
  }
  int depth = 0;
  std::size_t i = pos_;
  for (;;) {
    while (i < end_) {
      const char ch = buffer_[i];
      if (ch == '"') {
        std::size_t close = 0;
        if (!scan_string(i, close)) return false;
        i = close + 1;
        continue;
      }
      if (ch == '{' || ch == '[') {
        ++depth;
      } else if (ch == '}' || ch == ']') {
        if (--depth == 0) {
          end = i + 1;
          return true;
        }
      }
      ++i;
    }
    const std::size_t shift = keep_from_;
    if (!more()) return false;
    i -= shift;
  }
}

JsonObjectScanner::Item JsonObjectScanner::next() {
  for (;;) {
    char c = 0;
    switch (state_) {
      case State::kDone:
        return Item::kEnd;
      case State::kStart:
        if (!peek(c, true)) return fail(error_.empty() ? "empty file" : error_);
        if (c != '{') return fail("not a JSON object");
        ++pos_;
        state_ = State::kMembers;
        continue;
      case State::kMembers: {
        if (!peek(c, true)) return fail(error_.empty() ? "truncated JSON document" : error_);
        if (c == '}') {
          ++pos_;
          state_ = State::kDone;
          return Item::kEnd;
        }
        if (c == ',') {
          ++pos_;
          continue;
        }
        if (c != '"') return fail("expected a key at byte " + std::to_string(bytes()));
        keep_from_ = pos_;
        std::size_t close = 0;
        if (!scan_string(pos_, close)) return fail("truncated JSON document");
        key_.assign(buffer_.data() + pos_ + 1, close - pos_ - 1);
        pos_ = close + 1;
        if (!peek(c, true) || c != ':') return fail("expected ':' after \"" + key_ + "\"");
        ++pos_;
        if (!peek(c, true)) return fail("truncated JSON document");
        if (key_ == array_key_ && c == '[') {
          ++pos_;
          state_ = State::kArray;
          continue;
        }
        keep_from_ = pos_;
        std::size_t value_end = 0;
        if (!scan_value(value_end))
          return fail(error_.empty() ? "truncated JSON document" : error_);
        text_ = std::string_view(buffer_.data() + pos_, value_end - pos_);
        offset_ = consumed_base_ + pos_;
        pos_ = value_end;
        return Item::kMember;
      }
      case State::kArray: {
        if (!peek(c, true)) return fail(error_.empty() ? "truncated JSON document" : error_);
        if (c == ',') {
          ++pos_;
          continue;
        }
        if (c == ']') {
          ++pos_;
          state_ = State::kMembers;
          continue;
        }
        keep_from_ = pos_;
        std::size_t value_end = 0;
        if (!scan_value(value_end))
          return fail(error_.empty() ? "truncated JSON document" : error_);
        text_ = std::string_view(buffer_.data() + pos_, value_end - pos_);
        offset_ = consumed_base_ + pos_;
        pos_ = value_end;
        return Item::kElement;
      }
    }
  }
}

}  // namespace stallwatch::collector
