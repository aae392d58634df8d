// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stallwatch::agent {

// Keeps CUPTI's delivery delay well under the collector's lateness (2 s).
//
// CUPTI hands a buffer back only when every record in it is complete, and
// (from its own worker thread) only when it is full; while the CPU runs ahead
// of the GPU the buffer being filled always holds a launched, unfinished
// kernel, so an unbounded 1 MiB buffer comes back only once full: at a few
// hundred kernels per second that is many seconds, exactly when the GPU is
// busy. The pacer bounds the records per buffer (the max_records CUPTI is
// given with each buffer) so that a buffer fills within kFillTargetNs at the
// recent record rate (at first, what a buffer holds; never fewer than
// kMinRecords, so that the pool still takes a burst after an idle spell),
// and asks for a forced flush when buffers are out, none has come back for
// kForceAfterNs, and either no record rate has been measured yet (the first
// buffers, sized for a burst, might never fill) or three quarters of the pool
// are out (CUPTI would soon drop records for want of a buffer). A forced
// flush returns unfinished records without timestamps: they are lost, and
// counted. Once buffers are sized to the rate, one that does not come back
// holds a kernel still running (a long kernel, a collective waiting for a
// slow rank, a GPU far behind the CPU): it comes back whole, late, when that
// kernel ends, rather than forced back without it. It also keeps the
// delivery delay measured per buffer (time from the earliest end of its
// records to its arrival) for the statistics.
//
// tick() and on_delivered() from one thread at a time (the pump, or the
// caller of stop); records_per_buffer() from any thread (CUPTI's).
class DeliveryPacer {
 public:
  static constexpr std::int64_t kFillTargetNs = 200'000'000;
  static constexpr std::int64_t kForceAfterNs = 1'000'000'000;
  static constexpr std::size_t kMinRecords = 32;

  // `max_records`: what one buffer holds at most (bytes / smallest record).
  explicit DeliveryPacer(std::size_t max_records = 4096) noexcept : max_records_(max_records) {}

  void reset(std::size_t max_records, std::int64_t now_ns) noexcept;
  // A buffer of `records` came back at `now_ns`; `delay_ns` < 0: none timed.
  void on_delivered(std::size_t records, std::int64_t delay_ns, std::int64_t now_ns) noexcept;
  // Once per poll: updates the rate estimate and the records per buffer.
  void tick(std::int64_t now_ns) noexcept;
  // Whether a forced flush is due, given how many of the pool's
  // `pool_buffers` CUPTI holds.
  bool force_due(std::size_t buffers_out, std::size_t pool_buffers,
                 std::int64_t now_ns) const noexcept;
  // Restarts the wait for a buffer: after a forced flush, or while none is out.
  void note_progress(std::int64_t now_ns) noexcept;

  std::size_t records_per_buffer() const noexcept {
    return records_per_buffer_.load(std::memory_order_relaxed);
  }
  double rate_per_second() const noexcept { return rate_; }
  std::int64_t last_delay_ns() const noexcept {
    return last_delay_.load(std::memory_order_relaxed);
  }
  std::int64_t max_delay_ns() const noexcept { return max_delay_.load(std::memory_order_relaxed); }

 private:
  std::size_t max_records_;
  std::atomic<std::size_t> records_per_buffer_{0};
  std::atomic<std::int64_t> last_delay_{0};
  std::atomic<std::int64_t> max_delay_{0};
  double rate_ = 0.0;
  bool rate_measured_ = false;  // a tick has seen delivered records since reset
  std::size_t window_records_ = 0;
  std::int64_t window_start_ns_ = 0;
  std::int64_t last_progress_ns_ = 0;
};

}  // namespace stallwatch::agent
