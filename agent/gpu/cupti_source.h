// SPDX-License-Identifier: MIT
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "activity_buffer_pool.h"
#include "activity_sink.h"
#include "clock_map.h"
#include "cupti_library.h"
#include "delivery_pacer.h"
#include "gpu_source.h"

namespace stallwatch::agent {

struct CuptiStats {
  std::uint64_t records = 0;  // turned into events
  std::uint64_t dropped = 0;  // device work lost: no buffer, no timestamps, unfinished at a
                              // forced flush (untimed is part of it)
  std::uint64_t untimed = 0;  // records of device work that came without timestamps
  std::uint64_t skipped = 0;  // records of other kinds
  std::uint64_t buffers_completed = 0;
  std::uint64_t buffers_refused = 0;
  std::uint64_t clock_samples = 0;
  std::uint64_t clock_resets = 0;
  std::uint64_t forced_flushes = 0;        // periodic ones, not the final one
  std::int64_t delivery_delay_ns = 0;      // the latest buffer: arrival - earliest record end
  std::int64_t delivery_delay_max_ns = 0;  // the longest since start
  std::uint64_t records_per_buffer = 0;    // the max_records CUPTI gets now
};

// Device activity from the CUPTI Activity API: CONCURRENT_KERNEL, MEMCPY and
// MEMSET records (never the KERNEL kind, which serialises kernels) become
// cat "gpu" complete events, one lane per device and stream.
//
// start(): loads libcupti (cupti_library.h: the one matching the process's
// CUDA) and checks its version. It calls nothing else in CUPTI before the
// program has initialized CUDA itself (CudaDriver::initialized), because
// CUPTI initializes the driver, and a parent that did so cannot fork workers
// that use CUDA: until then the source waits, and the pump arms it within
// one poll once CUDA is up. Arming: a subscribe that is given back at once
// (the protocol for "is another client there": Nsight Systems, Nsight
// Compute, a debugger, or a profiler that holds a subscription make it fail,
// and the source gives up), the buffer callbacks and the three kinds. The
// subscription is not kept: the Activity API needs none, and a kept one
// would make torch.profiler's own subscribe fail, leaving its traces without
// GPU activity for the rest of the process. A profiler that starts later
// registers its own buffer callbacks and takes the records over until the
// process ends (agent/gpu/README.md).
//
// Buffers come from a fixed pool (STALLWATCH_CUPTI_BUFFERS x
// STALLWATCH_CUPTI_BUFFER_KB, default 128 x 64 KiB: many small buffers, so that
// a burst of launches finds room even while records per buffer are few), each given with a record
// limit from the DeliveryPacer so that buffers come back well within the
// collector's lateness; when the pool runs dry CUPTI drops records, which are
// counted and reported as agent drops, like records that come without
// timestamps. The buffer callbacks run on CUPTI's threads and never block:
// a completed buffer is queued, and the pump thread (poll, every 100 ms)
// parses, maps (ClockMap, sampled on every poll) and sends it, waiting for
// the sender as it needs to. stop() disables the kinds, lets the device
// finish (default flushes until every buffer is back, at most
// STALLWATCH_CUPTI_STOP_WAIT_MS, default 2000), then force-flushes and reads
// the drop count a last time.
//
// One instance per process (CUPTI callbacks carry no user data), never
// destroyed, driven by GpuManager, which also forwards fork(): a child never
// calls CUPTI, refuses buffers, and cannot start the source if its parent
// had armed it (CUDA is unusable there).
class CuptiSource final : public GpuSource {
 public:
  static constexpr std::size_t kMaxBuffers = 256;

  static CuptiSource& instance() noexcept;

  const char* name() const noexcept override { return "cupti"; }
  bool start(std::string& why) noexcept override;
  void poll(std::int64_t now_ns) noexcept override;
  void stop() noexcept override;
  void abandon() noexcept override;

  CuptiStats stats() const noexcept;
  // Which libcupti and why, and whether it waits for CUDA or failed late.
  std::string status() const;
  // Set once when arming after CUDA came up failed (the pump's caller then
  // stops declaring cupti; there is no falling back to another source then,
  // only to compute regions).
  bool failed_late() const noexcept { return failed_late_.load(std::memory_order_acquire); }

  // Called (from CUPTI's thread) when half the pool waits in the queue, so
  // that the pump sends it before CUPTI runs out of buffers.
  void set_wake(void (*wake)()) noexcept { wake_.store(wake, std::memory_order_release); }

  void on_fork_prepare() noexcept;
  void on_fork_parent() noexcept;
  void on_fork_child() noexcept;

 private:
  enum class State : std::uint8_t { kIdle, kWaiting, kArmed };

  struct Completed {
    std::uint8_t* buffer;
    std::size_t valid_size;
    std::int64_t at_ns;
  };

  CuptiSource() = default;

  static void on_callback(void* userdata, int domain, std::uint32_t cbid,
                          const void* data) noexcept;
  static void on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                  std::size_t* max_records) noexcept;
  static void on_buffer_completed(void* context, std::uint32_t stream_id, std::uint8_t* buffer,
                                  std::size_t size, std::size_t valid_size) noexcept;

  bool arm(std::string& why) noexcept;
  void process_completed() noexcept;
  void deliver(const Completed& completed) noexcept;
  void read_dropped() noexcept;
  void count_lost(std::uint64_t records) noexcept;
  void sample_clock() noexcept;
  bool enable_kinds(std::string& why) noexcept;
  void disable_kinds() noexcept;
  void set_status(std::string text);
  // What of the launch calls is recorded, for the status ("; runtime and
  // driver launch calls only").
  std::string launch_note() const;

  CuptiLibrary lib_;
  bool loaded_ = false;
  bool launches_ = false;         // RUNTIME records (launch calls) are enabled
  bool driver_launches_ = false;  // and DRIVER records
  bool api_filtered_ = false;     // CUPTI records only their launch calls
  std::atomic<State> state_{State::kIdle};
  pid_t armed_pid_ = 0;  // the process that armed CUPTI last
  bool forked_ = false;  // this process is a child forked from one that armed it
  ActivityBufferPool pool_;
  DeliveryPacer pacer_;
  ActivitySink sink_;  // pump thread or stop's caller, one at a time
  std::mutex completed_mutex_;
  std::array<Completed, kMaxBuffers> completed_{};
  std::size_t completed_count_ = 0;
  mutable std::mutex clock_mutex_;
  ClockMap clock_;
  std::uint64_t clock_resets_before_ = 0;  // resets of earlier sessions' maps
  mutable std::mutex status_mutex_;
  std::string status_;
  std::atomic<bool> failed_late_{false};
  std::atomic<void (*)()> wake_{nullptr};
  std::atomic<std::uint64_t> records_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> untimed_{0};
  std::atomic<std::uint64_t> skipped_{0};
  std::atomic<std::uint64_t> buffers_completed_{0};
  std::atomic<std::uint64_t> clock_samples_{0};
  std::atomic<std::uint64_t> forced_flushes_{0};
};

}  // namespace stallwatch::agent
