// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "input_file.h"

namespace stallwatch::collector {

// Splits one large JSON document of the shape {"key": value, ..., "<array_key>":
// [elem, elem, ...], ...} into its top-level members and the elements of one
// array member, without parsing them, through one reused buffer. This is how a
// Kineto trace (a single multi-gigabyte object) is streamed: each element is
// parsed on its own afterwards.
//
// Every returned span is followed by at least kPadding readable bytes (for
// simdjson). Spans are valid until the next call. Single-threaded.
class JsonObjectScanner {
 public:
  static constexpr std::size_t kPadding = 64;
  static constexpr std::size_t kFirstChunk = 64u << 10;

  enum class Item : std::uint8_t {
    kMember,   // a top-level key with its raw value
    kElement,  // one element of the array member named array_key
    kEnd,      // the document is complete
    kError,    // unreadable or not this shape; see error()
  };

  JsonObjectScanner(InputFile& file, std::string array_key, std::size_t chunk_bytes = 256u << 10,
                    std::size_t max_item_bytes = 256u << 20);

  // Optional: a reader that finds where an element ends while it parses it
  // (the Kineto reader's hand-written parser). Given the buffered bytes from
  // an element's first byte on (kPadding readable after them), it returns
  // the element's length, or 0 when it cannot tell: the scanner then finds
  // the end itself, refilling as needed. element_read() says which it was.
  using ElementReader = std::size_t (*)(std::string_view rest, void* context);
  void set_element_reader(ElementReader reader, void* context) {
    element_reader_ = reader;
    element_reader_context_ = context;
  }

  Item next();
  // The last kElement was measured by the element reader.
  bool element_read() const { return element_read_; }
  std::string_view key() const { return key_; }
  std::string_view text() const { return text_; }
  std::uint64_t offset() const { return offset_; }  // of text() in the inflated file
  std::uint64_t bytes() const { return consumed_base_ + pos_; }
  const std::string& error() const { return error_; }

 private:
  enum class State : std::uint8_t { kStart, kMembers, kArray, kDone };
  // Ensures at least one byte at pos_ (skipping whitespace when asked); false at EOF.
  bool peek(char& c, bool skip_ws);
  // Finds the end of the value starting at pos_; refills as needed.
  bool scan_value(std::size_t& end);
  bool scan_string(std::size_t start, std::size_t& end);
  bool more();  // compacts and reads; false at EOF or error
  Item fail(std::string message);

  InputFile& file_;
  std::string array_key_;
  std::size_t max_item_bytes_;
  std::size_t chunk_bytes_;
  std::vector<char> buffer_;
  std::size_t capacity_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::size_t keep_from_ = 0;  // bytes before this may be discarded
  std::uint64_t consumed_base_ = 0;
  bool eof_ = false;
  bool last_read_filled_ = false;  // the file may hold more than the buffer
  State state_ = State::kStart;
  std::string key_;
  std::string_view text_;
  std::uint64_t offset_ = 0;
  std::string error_;
  ElementReader element_reader_ = nullptr;
  void* element_reader_context_ = nullptr;
  bool element_read_ = false;
};

}  // namespace stallwatch::collector
