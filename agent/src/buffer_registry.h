// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "thread_buffer.h"
#include "wakeup.h"

namespace stallwatch::agent {

// The calling thread's buffer, or null before its first event (or after it
// exited). Initial-exec TLS: one pointer, no lookup call on the hot path.
extern constinit thread_local ThreadBuffer* current_thread_buffer
    __attribute__((tls_model("initial-exec")));

// Totals over every buffer, live and freed, since the process (or the forked
// child) started.
struct BufferTotals {
  std::uint64_t recorded = 0;
  std::uint64_t dropped = 0;
  std::uint64_t queued = 0;
  std::uint32_t live_threads = 0;
};

// The list of all thread buffers.
//
// Recording threads register themselves on their first event (slow path: a
// lock and an allocation). A thread-exit hook marks the buffer exited; the
// sender thread, the only one that frees buffers, frees an exited buffer once
// it has drained it, folding its counters into the totals. Statistics readers
// take the lock. Owns the buffers; process-wide, never destroyed.
class BufferRegistry {
 public:
  BufferRegistry();

  // Calling thread: allocates and registers its buffer and sets
  // current_thread_buffer. Null when out of memory.
  ThreadBuffer* register_current_thread(std::size_t capacity, Wakeup* wakeup) noexcept;

  // Sender: copies the current list into `out` (reused, no allocation once warm).
  void snapshot(std::vector<ThreadBuffer*>& out);
  // Sender: frees `buffer`, which has exited and is drained.
  void retire(ThreadBuffer* buffer);

  // Events refused by full rings, over every buffer ever registered.
  std::uint64_t dropped();

  BufferTotals totals();

  // fork(): prepare locks, parent/child unlock. In the child, reset_in_child()
  // frees every buffer but the forking thread's, which it empties.
  std::mutex& mutex() noexcept { return mutex_; }
  void reset_in_child() noexcept;

 private:
  std::mutex mutex_;
  std::vector<ThreadBuffer*> buffers_;
  std::atomic<std::uint64_t> retired_recorded_{0};
  std::atomic<std::uint64_t> retired_dropped_{0};
};

}  // namespace stallwatch::agent
