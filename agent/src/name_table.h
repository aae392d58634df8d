// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace stallwatch::agent {

// Interned names (the agent has one, process-wide): category and event names become small,
// stable ids (1..kMaxNames; 0 is "no name").
//
// intern() takes a lock and may allocate: callers intern once and keep the
// id. lookup() is lock-free and safe from any thread, including the sender
// while other threads intern. Strings are copied and kept until the table is
// destroyed, which the agent's never is: views stay valid for the life of the
// process (and in forked children, where ids stay the same). fork(): prepare locks mutex(), parent
// and child unlock it.
class NameTable {
 public:
  static constexpr std::uint32_t kMaxNames = 65535;  // ids must fit Event.cat/name (uint16)
  static constexpr std::size_t kMaxLength = 1024;

  NameTable() = default;
  ~NameTable();
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // The id of `str`, or 0 when it is empty, longer than kMaxLength, the
  // table is full, or memory ran out. Never throws.
  std::uint32_t intern(std::string_view str) noexcept;
  // The string behind `id`; an empty view with data() == nullptr when unknown.
  std::string_view lookup(std::uint32_t id) const noexcept;
  std::uint32_t size() const noexcept { return count_.load(std::memory_order_acquire); }

  std::mutex& mutex() noexcept { return mutex_; }

 private:
  struct Entry {
    const char* data = nullptr;
    std::uint32_t size = 0;
  };
  static constexpr std::uint32_t kChunkBits = 10;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr std::uint32_t kChunks = (kMaxNames + 1 + kChunkSize - 1) / kChunkSize;

  std::mutex mutex_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  std::array<std::atomic<Entry*>, kChunks> chunks_{};
  std::atomic<std::uint32_t> count_{0};
};

}  // namespace stallwatch::agent
