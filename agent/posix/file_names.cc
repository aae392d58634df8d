// SPDX-License-Identifier: MIT
#include "file_names.h"

#include <bit>

namespace stallwatch::posix {
namespace {

// FNV-1a, never 0 (0 marks a free slot).
std::uint64_t path_hash(std::string_view path) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : path) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash != 0 ? hash : 1;
}

}  // namespace

FileNames::FileNames(std::uint32_t limit, sw_name_t other)
    : limit_(limit),
      other_(other),
      capacity_(std::bit_ceil(std::size_t{limit} * 2 + 16)),
      slots_(new Slot[capacity_]) {}

sw_name_t FileNames::id_for(std::string_view path, bool* first) noexcept {
  *first = false;
  const std::uint64_t hash = path_hash(path);
  const std::size_t mask = capacity_ - 1;
  for (std::size_t probe = 0; probe < capacity_; ++probe) {
    Slot& slot = slots_[(hash + probe) & mask];
    std::uint64_t seen = slot.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (slot.hash.compare_exchange_strong(seen, hash, std::memory_order_acq_rel)) {
        sw_name_t id = other_;
        if (named_.fetch_add(1, std::memory_order_relaxed) < limit_) {
          id = sw_intern_n(path.data(), path.size());
          if (id == 0) id = other_;
        }
        if (id == other_) folded_.fetch_add(1, std::memory_order_relaxed);
        slot.id.store(id, std::memory_order_release);
        *first = true;
        return id;
      }
    }
    if (seen == hash) {
      const sw_name_t id = slot.id.load(std::memory_order_acquire);
      // Still being named by another thread: interning is idempotent.
      if (id != 0) return id;
      return named_.load(std::memory_order_relaxed) <= limit_
                 ? sw_intern_n(path.data(), path.size())
                 : other_;
    }
  }
  folded_.fetch_add(1, std::memory_order_relaxed);
  return other_;
}

}  // namespace stallwatch::posix
