// SPDX-License-Identifier: MIT
#include "json_object_scanner.h"

#include <algorithm>
#include <cstdint>
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

// Bit i of each mask is byte p[i] of a 64-byte block. Reads 64 bytes from p
// (the buffer's padding covers a short last block); callers mask off what is
// past the end.
struct BlockMasks {
  std::uint64_t quote = 0;
  std::uint64_t backslash = 0;
  std::uint64_t open = 0;   // { [
  std::uint64_t close = 0;  // } ]
};

BlockMasks classify(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  for (int k = 0; k < 4; ++k) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const auto bits = [](__m128i hits) {
      return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(hits)));
    };
    const int shift = 16 * k;
    m.quote |= bits(_mm_cmpeq_epi8(chunk, quote)) << shift;
    m.backslash |= bits(_mm_cmpeq_epi8(chunk, backslash)) << shift;
    m.open |=
        bits(_mm_or_si128(_mm_cmpeq_epi8(chunk, open_brace), _mm_cmpeq_epi8(chunk, open_bracket)))
        << shift;
    m.close |=
        bits(_mm_or_si128(_mm_cmpeq_epi8(chunk, close_brace), _mm_cmpeq_epi8(chunk, close_bracket)))
        << shift;
  }
#else
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    const char c = p[i];
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if (c == '{' || c == '[') m.open |= bit;
    if (c == '}' || c == ']') m.close |= bit;
  }
#endif
  return m;
}

// Bit i set where an odd number of bits at or below i are set in x.
std::uint64_t prefix_xor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
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
  if (end_ == capacity_ || (capacity_ < chunk_bytes_ && last_read_filled_)) {
    // Small files stay in the first, small buffer; a file that filled it
    // grows it to the chunk size, and a value that fills it grows it further.
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
  last_read_filled_ = static_cast<std::size_t>(n) == capacity_ - end_;
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
  // An object or array: 64 bytes at a time, the way simdjson's stage 1 finds
  // structure — quotes not escaped by an odd run of backslashes open and
  // close strings (a prefix XOR), and the brackets outside strings move the
  // depth. The escape and in-string state carry from block to block and
  // across refills.
  std::int64_t depth = 0;
  bool escape_next = false;           // the first byte of the next block is escaped
  std::uint64_t in_string_carry = 0;  // all ones while a string is open
  std::size_t i = pos_;
  for (;;) {
    while (i < end_) {
      const std::size_t n = std::min<std::size_t>(64, end_ - i);
      const std::uint64_t valid = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
      const BlockMasks m = classify(buffer_.data() + i);
      std::uint64_t escaped = escape_next ? 1 : 0;
      escape_next = false;
      for (std::uint64_t b = m.backslash & valid; b != 0; b &= b - 1) {
        const int at = __builtin_ctzll(b);
        if ((escaped >> at) & 1) continue;
        if (static_cast<std::size_t>(at) + 1 == n) {
          escape_next = true;
        } else {
          escaped |= std::uint64_t{1} << (at + 1);
        }
      }
      const std::uint64_t quotes = m.quote & valid & ~escaped;
      const std::uint64_t in_string = prefix_xor(quotes) ^ in_string_carry;
      std::uint64_t brackets = (m.open | m.close) & valid & ~in_string;
      // A few brackets per block: walking them costs less than counting them
      // (no POPCNT in baseline x86-64).
      for (; brackets != 0; brackets &= brackets - 1) {
        const int at = __builtin_ctzll(brackets);
        if ((m.open >> at) & 1) {
          ++depth;
        } else if (--depth == 0) {
          end = i + static_cast<std::size_t>(at) + 1;
          return true;
        }
      }
      in_string_carry = ((in_string >> (n - 1)) & 1) != 0 ? ~std::uint64_t{0} : std::uint64_t{0};
      i += n;
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
        element_read_ = false;
        if (element_reader_ != nullptr) {
          const std::size_t length = element_reader_(
              std::string_view(buffer_.data() + pos_, end_ - pos_), element_reader_context_);
          if (length > 0 && length <= end_ - pos_) {
            value_end = pos_ + length;
            element_read_ = true;
          }
        }
        if (!element_read_ && !scan_value(value_end))
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
