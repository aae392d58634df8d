// SPDX-License-Identifier: MIT
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "time_base.h"

namespace stallwatch::agent {

// Which tick source the hot path reads; set once, before any recording.
inline constinit std::atomic<bool> clock_uses_tsc{false};

// The vDSO's own clock_gettime (__vdso_clock_gettime), which the C library's
// wraps: called directly, a reading touches neither the C library's code nor
// the loader's data that holds the pointer. Null where the vDSO lacks it; set
// once, before any recording. Returns 0 or -errno and never sets errno.
using VdsoClockGettime = int(clockid_t, timespec*);
inline constinit std::atomic<VdsoClockGettime*> vdso_clock_gettime{nullptr};

// Hot path: the current tick count (TSC, or CLOCK_MONOTONIC nanoseconds).
// Never changes errno.
inline std::int64_t read_ticks() noexcept {
#if defined(__x86_64__)
  if (clock_uses_tsc.load(std::memory_order_relaxed)) [[likely]] {
    return static_cast<std::int64_t>(__builtin_ia32_rdtsc());
  }
#endif
  timespec now;
  if (VdsoClockGettime* vdso = vdso_clock_gettime.load(std::memory_order_relaxed);
      vdso == nullptr || vdso(CLOCK_MONOTONIC, &now) != 0) [[unlikely]] {
    clock_gettime(CLOCK_MONOTONIC, &now);  // cannot fail: errno untouched
  }
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Nonzero when the ticks are CLOCK_MONOTONIC nanoseconds but the CPU has an
// invariant TSC: then a call timed whole (sw_call_start/sw_call_end) measures
// its duration with the TSC, nanoseconds per TSC tick in 32.32 fixed point,
// and reads the clock once, at its end. After a system call a vDSO clock read
// (kvm-clock, Hyper-V) costs tens of ns more than RDTSC. The duration's error
// is the rate's: up to ~100 ppm from the 1 ms calibration at start, a few ppm
// once the sender has refined it over the run (recalibrate). Set once before
// any recording; never set back to 0.
inline constinit std::atomic<std::uint64_t> call_tsc_mult{0};

// The stamp of the start of a call timed whole: the TSC when call_tsc_mult is
// set, else the ticks.
inline std::int64_t read_call_stamp() noexcept {
#if defined(__x86_64__)
  if (call_tsc_mult.load(std::memory_order_relaxed) != 0)
    return static_cast<std::int64_t>(__builtin_ia32_rdtsc());
#endif
  return read_ticks();
}

// Like read_ticks(), but not executed before earlier loads complete, so a
// reading ordered after another thread's (through memory) is never smaller.
inline std::int64_t read_ticks_ordered() noexcept {
#if defined(__x86_64__)
  if (clock_uses_tsc.load(std::memory_order_relaxed)) [[likely]] {
    __builtin_ia32_lfence();
    return static_cast<std::int64_t>(__builtin_ia32_rdtsc());
  }
#endif
  return read_ticks();
}

// The agent's clock: Unix epoch nanoseconds = a monotonic tick source plus
// one offset taken when the clock starts, so it never jumps backwards inside
// a process.
//
// Tick source: the TSC when the CPU reports an invariant TSC and the kernel
// itself uses "tsc" as its clocksource (so it passed the kernel's
// synchronisation checks), unless STALLWATCH_CLOCK=monotonic; otherwise
// CLOCK_MONOTONIC through the vDSO. Rationale and figures: bench_agent_clock.
// With CLOCK_MONOTONIC ticks and an invariant TSC (not STALLWATCH_CLOCK=
// monotonic), the TSC rate is calibrated all the same for call_tsc_mult.
//
// TSC mode: start() calibrates for about 1 ms against CLOCK_MONOTONIC;
// afterwards only the sender thread calls recalibrate(), which re-estimates
// the frequency over the whole run and steers the mapping towards
// CLOCK_MONOTONIC (at most 500 ppm; a forward step when more than 1 ms
// behind), publishing a new continuous segment under a seqlock. Readers on
// any thread (time_base, now_ns) never lock. Process-wide, never destroyed.
class ProcessClock {
 public:
  // The clock, started on first use (thread-safe).
  static ProcessClock& instance() noexcept;

  bool uses_tsc() const noexcept { return uses_tsc_; }
  std::int64_t now_ns() const noexcept;
  std::int64_t to_ns(std::int64_t ticks) const noexcept { return time_base().to_ns(ticks); }
  TimeBase time_base() const noexcept;

  // Sender thread only.
  void recalibrate() noexcept;

  // fork(): prepare locks, parent and child unlock, so a child never inherits
  // a half-written mapping.
  std::mutex& mutex() noexcept { return mutex_; }

 private:
  struct Sample {
    std::int64_t ticks;
    std::int64_t mono_ns;
  };

  ProcessClock() noexcept;
  static Sample sample_tsc() noexcept;
  void publish(const TimeBase& base) noexcept;
  void refine_call_rate() noexcept;

  bool uses_tsc_ = false;
  std::int64_t epoch_offset_ns_ = 0;  // realtime - monotonic at start
  Sample origin_{0, 0};               // first TSC calibration sample (TSC mode, call_tsc_mult)
  std::mutex mutex_;
  std::atomic<std::uint32_t> sequence_{0};
  std::atomic<std::int64_t> current_ticks_{0}, current_ns_{0}, previous_ticks_{0}, previous_ns_{0};
  std::atomic<std::uint64_t> current_mult_{0}, previous_mult_{0};
};

}  // namespace stallwatch::agent
