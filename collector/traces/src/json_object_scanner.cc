// SPDX-License-Identifier: MIT
#include "json_object_scanner.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stallwatch::collector {

namespace {
bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
bool ends_scalar(char c) {
  return c == ',' || c == '}' || c == ']' || is_ws(c);
}

// The first of " { } [ ] in [p, end), or end; 16 bytes at a time where SSE2
// is there (every x86-64). May read up to 15 bytes past `end` (the buffer's
// padding), never using them.
const char* find_structural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  while (p < end) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i braces =
        _mm_or_si128(_mm_cmpeq_epi8(chunk, open_brace), _mm_cmpeq_epi8(chunk, close_brace));
    const __m128i brackets =
        _mm_or_si128(_mm_cmpeq_epi8(chunk, open_bracket), _mm_cmpeq_epi8(chunk, close_bracket));
    const __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_or_si128(braces, brackets));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return std::min(end, p + __builtin_ctz(static_cast<unsigned>(mask)));
    p += 16;
  }
  return end;
#else
  while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
    ++p;
  return p;
#endif
}

// The first '"' or '\\' in [p, end), or end (reads as find_structural does).
const char* find_quote_or_backslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (p < end) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (mask != 0) return std::min(end, p + __builtin_ctz(static_cast<unsigned>(mask)));
    p += 16;
  }
  return end;
#else
  while (p < end && *p != '"' && *p != '\\')
    ++p;
  return p;
#endif
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
    // A value cannot start with , } or ]: an empty value would not move the
    // scan on, and a stray '}' in the array would be read forever.
    if (ends_scalar(c)) {
      error_ =
          std::string("unexpected '") + c + "' at byte " + std::to_string(consumed_base_ + start);
      return false;
    }
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
      const char* base = buffer_.data();
      i = static_cast<std::size_t>(find_structural(base + i, base + end_) - base);
      if (i >= end_) break;
      const char ch = base[i];
      if (ch == '"') {
        // Within the buffered bytes here; across a refill in scan_string().
        std::size_t j = i + 1;
        while (j < end_) {
          j = static_cast<std::size_t>(find_quote_or_backslash(base + j, base + end_) - base);
          if (j >= end_ || base[j] == '"') break;
          j += 2;  // an escape and the character it escapes
        }
        if (j < end_) {
          i = j + 1;
          continue;
        }
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
