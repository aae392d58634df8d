// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace stallwatch::agent {

// The fixed set of buffers that CUPTI fills with activity records, so that a
// burst of kernels costs bounded memory: configure() allocates `count`
// buffers of `bytes` once (later calls keep them), and they are never freed,
// because CUPTI may hand a buffer back late, even after the source stopped.
// acquire() returns a free buffer or, when all are out, nullptr and counts
// the refusal: CUPTI then drops records and reports how many (the source
// counts those as device drops). Any thread (CUPTI calls from its own
// threads); one mutex, taken twice per buffer, never per record.
class ActivityBufferPool {
 public:
  static constexpr std::size_t kAlignment = 8;  // CUPTI's ACTIVITY_RECORD_ALIGNMENT

  ActivityBufferPool() = default;
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // False when out of memory (or count/bytes is 0); true when configured,
  // now or before (with the first geometry).
  bool configure(std::size_t count, std::size_t bytes) noexcept;
  std::uint8_t* acquire() noexcept;
  // Takes back a buffer acquire() gave; ignores any other pointer.
  void release(std::uint8_t* buffer) noexcept;

  std::size_t buffer_bytes() const noexcept { return bytes_; }
  std::size_t capacity() const noexcept;
  std::size_t available() const noexcept;
  // Buffers handed out and not yet back.
  std::size_t outstanding() const noexcept;
  // fork(): the forking thread holds the pool's lock across fork, so that the
  // child's copy is consistent (pthread_atfork handlers).
  void lock_for_fork() noexcept { mutex_.lock(); }
  void unlock_after_fork() noexcept { mutex_.unlock(); }
  std::uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mutex_;
  std::vector<std::uint8_t*> all_;
  std::vector<std::uint8_t*> free_;
  std::size_t bytes_ = 0;
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace stallwatch::agent
