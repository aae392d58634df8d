// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stallwatch::collector {

// A collector-wide interned string id. 0 is the empty string.
using NameId = std::uint32_t;

// Interns category and event names from every source into dense ids, so the
// engine compares and classifies integers. Bounded: past `max_names` or
// `max_bytes` every new string maps to kOverflow ("<overflow>") and is counted,
// so a flood of random names cannot grow memory.
//
// Not thread-safe: owned by the ingest pipeline and used under the engine's
// lock. Views returned by str() stay valid for the table's lifetime.
class NameTable {
 public:
  static constexpr NameId kEmpty = 0;
  static constexpr NameId kOverflow = 1;

  explicit NameTable(std::size_t max_names = 1u << 20, std::size_t max_bytes = 64u << 20);

  NameId intern(std::string_view str);
  // Returns the id of an already interned string, or kEmpty when unknown.
  NameId find(std::string_view str) const;
  std::string_view str(NameId id) const;

  std::size_t size() const { return strings_.size(); }
  std::uint64_t overflowed() const { return overflowed_; }

 private:
  std::size_t max_names_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::uint64_t overflowed_ = 0;
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, NameId> ids_;
};

}  // namespace stallwatch::collector
