#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "activity_buffer_pool.h"
#include "activity_sink.h"
#include "clock_map.h"
#include "cupti_library.h"
#include "gpu_source.h"

namespace stallwatch::agent {

struct CuptiStats {
  std::uint64_t records = 0;  // turned into events
  std::uint64_t dropped = 0;  // lost before becoming events (CUPTI had no buffer)
  std::uint64_t skipped = 0;  // other kinds, or no timestamps
  std::uint64_t buffers_completed = 0;
  std::uint64_t buffers_refused = 0;
  std::uint64_t clock_samples = 0;
  std::uint64_t clock_resets = 0;
};

// Device activity from the CUPTI Activity API: CONCURRENT_KERNEL, MEMCPY and
// MEMSET records (never the KERNEL kind, which serialises kernels) become
// cat "gpu" complete events, one lane per device and stream.
//
// start(): loads libcupti (cupti_library.h), checks its version, subscribes
// (CUPTI's protocol for "is another client there": Nsight Systems, Nsight
// Compute, a debugger, or another profiler that subscribed make it fail, and
// the source gives up), registers the buffer callbacks and enables the three
// kinds. Buffers come from a fixed pool (STALLWATCH_CUPTI_BUFFERS x
// STALLWATCH_CUPTI_BUFFER_KB, default 8 x 1024 KiB); when it runs dry CUPTI
// drops records, which are counted and reported as agent drops. poll() (pump
// thread, every 100 ms) samples the (CUPTI clock, agent clock) pair that
// ClockMap maps timestamps with, and asks CUPTI for completed buffers. The
// buffer callbacks run on CUPTI's thread or on the thread that flushes; one
// buffer at a time goes through parse -> map -> ActivitySink. stop() disables
// the kinds, force-flushes and unsubscribes. Two CUPTI activity clients
// cannot share a process: a profiler that registers its own buffer callbacks
// later silently takes the records over (agent/gpu/README.md).
//
// One instance per process (CUPTI callbacks carry no user data), never
// destroyed, driven by GpuManager.
class CuptiSource final : public GpuSource {
 public:
  static CuptiSource& instance() noexcept;

  const char* name() const noexcept override { return "cupti"; }
  bool start(std::string& why) noexcept override;
  void poll(std::int64_t now_ns) noexcept override;
  void stop() noexcept override;
  void abandon() noexcept override;

  CuptiStats stats() const noexcept;

 private:
  CuptiSource() = default;

  static void on_callback(void* userdata, int domain, std::uint32_t cbid,
                          const void* data) noexcept;
  static void on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                  std::size_t* max_records) noexcept;
  static void on_buffer_completed(void* context, std::uint32_t stream_id, std::uint8_t* buffer,
                                  std::size_t size, std::size_t valid_size) noexcept;

  void deliver(std::uint8_t* buffer, std::size_t valid_size) noexcept;
  void sample_clock() noexcept;
  bool enable_kinds(std::string& why) noexcept;
  void disable_kinds() noexcept;

  CuptiLibrary lib_;
  bool loaded_ = false;
  bool running_ = false;
  cupti::SubscriberHandle subscriber_ = nullptr;
  ActivityBufferPool pool_;
  std::mutex deliver_mutex_;  // one buffer at a time through sink_
  ActivitySink sink_;
  mutable std::mutex clock_mutex_;
  ClockMap clock_;
  std::uint64_t clock_resets_before_ = 0;  // resets of earlier sessions' maps
  std::atomic<std::uint64_t> records_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> skipped_{0};
  std::atomic<std::uint64_t> buffers_completed_{0};
  std::atomic<std::uint64_t> clock_samples_{0};
};

}  // namespace stallwatch::agent
