// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "event_ring.h"
#include "record.h"

namespace stallwatch::agent {

// Everything one recording thread owns: its ring, its thread id, its region
// counter and its drop counter.
//
// The owning thread calls record() and next_region_id(); the sender drains
// ring() and, once the thread has exited and the ring is empty, frees the
// buffer (see BufferRegistry). Counters are single-writer atomics so that any
// thread may read them for statistics.
class ThreadBuffer {
 public:
  ThreadBuffer(std::size_t capacity, std::uint32_t tid, Wakeup* wakeup)
      : ring_(capacity, wakeup), tid_(tid) {}

  // Owner thread: appends one record; SW_OK-style result as bool.
  bool record(RecordKind kind, std::uint16_t cat, std::uint16_t name, std::int64_t ts,
              std::int64_t value, std::uint32_t region_id, std::uint32_t tid, std::uint8_t flags,
              std::uint16_t reserved = 0) noexcept {
    Record* slot = kind == RecordKind::kEnd ? ring_.try_claim_reserved() : ring_.try_claim();
    if (slot == nullptr) [[unlikely]] {
      count_drop();
      return false;
    }
    *slot = Record{ts, value, region_id, tid, cat, name, kind, flags, reserved};
    ring_.publish();
    return true;
  }

  // Owner thread: a region id in 1..0x7fffffff, distinct from the previous 2^31 - 1.
  std::uint32_t next_region_id() noexcept {
    std::uint32_t id = (region_counter_ + 1) & 0x7fffffffu;
    id += static_cast<std::uint32_t>(id == 0);
    region_counter_ = id;
    return id;
  }

  // Owner thread: one call that could not be recorded.
  void count_drop() noexcept {
    dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  std::uint32_t tid() const noexcept { return tid_; }
  EventRing& ring() noexcept { return ring_; }
  const EventRing& ring() const noexcept { return ring_; }
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  // Owner thread, at thread exit: after this the owner never records again.
  void mark_exited() noexcept { exited_.store(true, std::memory_order_release); }
  bool exited() const noexcept { return exited_.load(std::memory_order_acquire); }

  // Sender only: the last tick timestamp sent from this ring, so that a
  // thread's timestamps never go backwards on the wire.
  std::int64_t& last_ticks() noexcept { return last_ticks_; }

  // In a child right after fork, for the forking thread's own buffer.
  void reset_after_fork(std::uint32_t tid) noexcept {
    ring_.reset();
    tid_ = tid;
    dropped_.store(0, std::memory_order_relaxed);
    last_ticks_ = 0;
  }

 private:
  EventRing ring_;
  std::uint32_t tid_;
  std::uint32_t region_counter_ = 0;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<bool> exited_{false};
  std::int64_t last_ticks_ = 0;
};

}  // namespace stallwatch::agent
