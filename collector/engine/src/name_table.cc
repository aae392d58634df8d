// SPDX-License-Identifier: MIT
#include "engine/name_table.h"

namespace stallwatch::collector {

NameTable::NameTable(std::size_t max_names, std::size_t max_bytes)
    : max_names_(max_names < 2 ? 2 : max_names), max_bytes_(max_bytes) {
  // Ids 0 and 1 are fixed (kEmpty, kOverflow); deque keeps views stable.
  strings_.emplace_back();
  strings_.emplace_back("<overflow>");
  ids_.emplace(strings_[0], kEmpty);
  ids_.emplace(strings_[1], kOverflow);
}

NameId NameTable::intern(std::string_view str) {
  if (auto it = ids_.find(str); it != ids_.end()) return it->second;
  if (strings_.size() >= max_names_ || bytes_ + str.size() > max_bytes_) {
    ++overflowed_;
    return kOverflow;
  }
  const auto id = static_cast<NameId>(strings_.size());
  const std::string& stored = strings_.emplace_back(str);
  bytes_ += stored.size();
  ids_.emplace(stored, id);
  return id;
}

NameId NameTable::find(std::string_view str) const {
  auto it = ids_.find(str);
  return it == ids_.end() ? kEmpty : it->second;
}

std::string_view NameTable::str(NameId id) const {
  return id < strings_.size() ? std::string_view(strings_[id]) : std::string_view();
}

}  // namespace stallwatch::collector
