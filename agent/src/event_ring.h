// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "record.h"
#include "wakeup.h"

namespace stallwatch::agent {

// A bounded single-producer/single-consumer ring of Records.
//
// The producer is the one thread that owns the ring (try_claim + publish);
// the consumer is the sender thread (consume). Neither side locks, allocates
// or makes a system call, except that publish() notifies `wakeup` when the
// ring is at least half full, checked once every quarter of the capacity.
// When the ring is full, try_claim() fails and the caller counts a drop: old
// events are never overwritten. The last eighth of the ring is reserved for
// try_claim_reserved() (region ENDs): a region whose BEGIN was accepted then
// practically always gets its END, so a full ring never leaves the collector
// with a region that looks open forever.
//
// head_ counts records ever published, tail_ records ever consumed, so
// pushed() is also the number of records this ring accepted. Capacity is a
// power of two fixed at construction. Not copyable; owns its storage.
class EventRing {
 public:
  // `capacity` must be a power of two >= 4; `wakeup` may be null.
  EventRing(std::size_t capacity, Wakeup* wakeup);
  ~EventRing();
  EventRing(const EventRing&) = delete;
  EventRing& operator=(const EventRing&) = delete;

  // Producer: a slot to fill, or nullptr when all but the reserve is used.
  Record* try_claim() noexcept { return claim(unreserved_); }
  // Producer: a slot to fill, or nullptr when the ring is completely full.
  Record* try_claim_reserved() noexcept { return claim(capacity_); }

  // Producer: makes the slot returned by the last try_claim() visible.
  void publish() noexcept {
    const std::uint64_t head = head_local_ + 1;
    head_local_ = head;
    head_.store(head, std::memory_order_release);
    if ((head & signal_mask_) == 0) [[unlikely]]
      signal_if_filling(head);
  }

  // Consumer: passes records in order to `fn(const Record&) -> bool` up to
  // (not including) index `limit`; stops early, without consuming, at the
  // first record `fn` refuses. Returns how many were consumed.
  template <typename Fn>
  std::size_t consume(std::uint64_t limit, Fn&& fn) {
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    const std::uint64_t end = limit < head ? limit : head;
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    const std::uint64_t start = tail;
    while (tail < end && fn(static_cast<const Record&>(slots_[tail & mask_])))
      ++tail;
    tail_.store(tail, std::memory_order_release);
    return static_cast<std::size_t>(tail - start);
  }

  // Any thread: records published so far / consumed so far.
  std::uint64_t pushed() const noexcept { return head_.load(std::memory_order_acquire); }
  std::uint64_t popped() const noexcept { return tail_.load(std::memory_order_acquire); }
  // Any thread: records published and not yet consumed (a snapshot).
  std::size_t size() const noexcept {
    const std::uint64_t tail = popped();
    return static_cast<std::size_t>(pushed() - tail);
  }
  std::size_t capacity() const noexcept { return capacity_; }

  // Empties the ring and restarts its counters. Only when neither side can
  // run concurrently (in a child process right after fork).
  void reset() noexcept;

 private:
  Record* claim(std::uint64_t limit) noexcept {
    if (head_local_ - cached_tail_ >= limit) [[unlikely]] {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head_local_ - cached_tail_ >= limit) return nullptr;
    }
    return &slots_[head_local_ & mask_];
  }
  void signal_if_filling(std::uint64_t head) noexcept;

  // Producer side.
  alignas(64) std::uint64_t head_local_ = 0;
  std::uint64_t cached_tail_ = 0;
  Record* slots_;
  std::size_t capacity_;
  std::uint64_t unreserved_;
  std::uint64_t mask_;
  std::uint64_t signal_mask_;
  Wakeup* wakeup_;
  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
};

}  // namespace stallwatch::agent
