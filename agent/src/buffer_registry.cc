// SPDX-License-Identifier: MIT
#include "buffer_registry.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>

namespace stallwatch::agent {

constinit thread_local ThreadBuffer* current_thread_buffer
    __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

pthread_key_t exit_key;

// Runs on the exiting thread. A later recording call on this thread (from
// another thread-exit hook) registers a fresh buffer.
void on_thread_exit(void* value) {
  auto* buffer = static_cast<ThreadBuffer*>(value);
  if (current_thread_buffer == buffer) current_thread_buffer = nullptr;
  buffer->mark_exited();
}

}  // namespace

BufferRegistry::BufferRegistry() {
  pthread_key_create(&exit_key, on_thread_exit);
}

ThreadBuffer* BufferRegistry::register_current_thread(std::size_t capacity,
                                                      Wakeup* wakeup) noexcept {
  try {
    auto* buffer = new ThreadBuffer(capacity, static_cast<std::uint32_t>(gettid()), wakeup);
    {
      std::lock_guard lock(mutex_);
      try {
        buffers_.push_back(buffer);
      } catch (...) {
        delete buffer;
        return nullptr;
      }
    }
    pthread_setspecific(exit_key, buffer);
    current_thread_buffer = buffer;
    return buffer;
  } catch (...) {
    return nullptr;
  }
}

void BufferRegistry::snapshot(std::vector<ThreadBuffer*>& out) {
  std::lock_guard lock(mutex_);
  out.assign(buffers_.begin(), buffers_.end());
}

void BufferRegistry::retire(ThreadBuffer* buffer) {
  {
    std::lock_guard lock(mutex_);
    const auto it = std::find(buffers_.begin(), buffers_.end(), buffer);
    if (it == buffers_.end()) return;
    buffers_.erase(it);
    retired_recorded_.fetch_add(buffer->ring().pushed(), std::memory_order_relaxed);
    retired_dropped_.fetch_add(buffer->dropped(), std::memory_order_relaxed);
  }
  delete buffer;
}

std::uint64_t BufferRegistry::dropped() {
  std::lock_guard lock(mutex_);
  std::uint64_t dropped = retired_dropped_.load(std::memory_order_relaxed);
  for (const ThreadBuffer* buffer : buffers_)
    dropped += buffer->dropped();
  return dropped;
}

BufferTotals BufferRegistry::totals() {
  std::lock_guard lock(mutex_);
  BufferTotals totals;
  totals.recorded = retired_recorded_.load(std::memory_order_relaxed);
  totals.dropped = retired_dropped_.load(std::memory_order_relaxed);
  for (const ThreadBuffer* buffer : buffers_) {
    totals.recorded += buffer->ring().pushed();
    totals.dropped += buffer->dropped();
    totals.queued += buffer->ring().size();
    if (!buffer->exited()) ++totals.live_threads;
  }
  return totals;
}

void BufferRegistry::reset_in_child() noexcept {
  ThreadBuffer* survivor = current_thread_buffer;
  for (ThreadBuffer* buffer : buffers_) {
    if (buffer != survivor) delete buffer;
  }
  buffers_.clear();
  if (survivor != nullptr) {
    survivor->reset_after_fork(static_cast<std::uint32_t>(gettid()));
    buffers_.push_back(survivor);  // capacity is kept, so this cannot throw
  }
  retired_recorded_.store(0, std::memory_order_relaxed);
  retired_dropped_.store(0, std::memory_order_relaxed);
}

}  // namespace stallwatch::agent
