// SPDX-License-Identifier: MIT
#include "name_table.h"

#include <cstring>
#include <new>

namespace stallwatch::agent {

NameTable::~NameTable() {
  const std::uint32_t count = size();
  for (std::uint32_t id = 1; id <= count; ++id) {
    delete[] chunks_[id >> kChunkBits].load(std::memory_order_relaxed)[id & (kChunkSize - 1)].data;
  }
  for (std::atomic<Entry*>& chunk : chunks_)
    delete[] chunk.load(std::memory_order_relaxed);
}

std::uint32_t NameTable::intern(std::string_view str) noexcept {
  if (str.empty() || str.size() > kMaxLength) return 0;
  try {
    std::lock_guard lock(mutex_);
    if (const auto it = ids_.find(str); it != ids_.end()) return it->second;
    const std::uint32_t id = count_.load(std::memory_order_relaxed) + 1;
    if (id > kMaxNames) return 0;
    std::atomic<Entry*>& chunk = chunks_[id >> kChunkBits];
    if (chunk.load(std::memory_order_relaxed) == nullptr) {
      chunk.store(new Entry[kChunkSize], std::memory_order_release);
    }
    auto* copy = new char[str.size() + 1];
    std::memcpy(copy, str.data(), str.size());
    copy[str.size()] = '\0';
    const std::string_view stored(copy, str.size());
    try {
      ids_.emplace(stored, id);
    } catch (...) {
      delete[] copy;
      return 0;
    }
    chunk.load(std::memory_order_relaxed)[id & (kChunkSize - 1)] =
        Entry{copy, static_cast<std::uint32_t>(str.size())};
    count_.store(id, std::memory_order_release);
    return id;
  } catch (...) {
    return 0;
  }
}

std::string_view NameTable::lookup(std::uint32_t id) const noexcept {
  if (id == 0 || id > count_.load(std::memory_order_acquire)) return {};
  const Entry& entry =
      chunks_[id >> kChunkBits].load(std::memory_order_acquire)[id & (kChunkSize - 1)];
  return {entry.data, entry.size};
}

}  // namespace stallwatch::agent
