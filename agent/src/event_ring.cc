// SPDX-License-Identifier: MIT
#include "event_ring.h"

namespace stallwatch::agent {

EventRing::EventRing(std::size_t capacity, Wakeup* wakeup)
    : slots_(new Record[capacity]),
      capacity_(capacity),
      unreserved_(capacity - capacity / 8),
      mask_(capacity - 1),
      signal_mask_(capacity / 4 - 1),
      wakeup_(wakeup) {}

EventRing::~EventRing() {
  delete[] slots_;
}

void EventRing::reset() noexcept {
  head_local_ = 0;
  cached_tail_ = 0;
  head_.store(0, std::memory_order_relaxed);
  tail_.store(0, std::memory_order_relaxed);
}

void EventRing::signal_if_filling(std::uint64_t head) noexcept {
  if (wakeup_ == nullptr) return;
  const std::uint64_t tail = tail_.load(std::memory_order_acquire);
  if (head - tail >= capacity_ / 2) wakeup_->notify();
}

}  // namespace stallwatch::agent
