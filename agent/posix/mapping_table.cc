// SPDX-License-Identifier: MIT
#include "mapping_table.h"

#include <atomic>
#include <cstdint>

namespace stallwatch::posix {
namespace {

constexpr int kSlots = 256;

constinit std::atomic<std::uintptr_t> mappings[kSlots] = {};
constinit std::atomic<int> live{0};

}  // namespace

void remember_mapping(void* address) noexcept {
  const auto value = reinterpret_cast<std::uintptr_t>(address);
  for (auto& slot : mappings) {
    std::uintptr_t expected = 0;
    if (slot.compare_exchange_strong(expected, value, std::memory_order_relaxed)) {
      live.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

bool forget_mapping(void* address) noexcept {
  if (live.load(std::memory_order_relaxed) == 0) return false;
  auto value = reinterpret_cast<std::uintptr_t>(address);
  for (auto& slot : mappings) {
    if (slot.load(std::memory_order_relaxed) == value &&
        slot.compare_exchange_strong(value, 0, std::memory_order_relaxed)) {
      live.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace stallwatch::posix
