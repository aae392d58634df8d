// SPDX-License-Identifier: MIT
#include "activity_buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace stallwatch::agent {

bool ActivityBufferPool::configure(std::size_t count, std::size_t bytes) noexcept {
  std::lock_guard lock(mutex_);
  if (!all_.empty()) return true;
  if (count == 0 || bytes == 0) return false;
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  try {
    all_.reserve(count);
    free_.reserve(count);
  } catch (...) {
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    auto* buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlignment, bytes));
    if (buffer == nullptr) break;
    all_.push_back(buffer);
    free_.push_back(buffer);
  }
  if (all_.empty()) return false;
  bytes_ = bytes;
  return true;
}

std::uint8_t* ActivityBufferPool::acquire() noexcept {
  std::lock_guard lock(mutex_);
  if (free_.empty()) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  std::uint8_t* buffer = free_.back();
  free_.pop_back();
  return buffer;
}

void ActivityBufferPool::release(std::uint8_t* buffer) noexcept {
  std::lock_guard lock(mutex_);
  if (buffer == nullptr || std::find(all_.begin(), all_.end(), buffer) == all_.end() ||
      std::find(free_.begin(), free_.end(), buffer) != free_.end()) {
    return;
  }
  free_.push_back(buffer);  // capacity reserved for every buffer
}

std::size_t ActivityBufferPool::capacity() const noexcept {
  std::lock_guard lock(mutex_);
  return all_.size();
}

std::size_t ActivityBufferPool::outstanding() const noexcept {
  std::lock_guard lock(mutex_);
  return all_.size() - free_.size();
}

std::size_t ActivityBufferPool::available() const noexcept {
  std::lock_guard lock(mutex_);
  return free_.size();
}

}  // namespace stallwatch::agent
