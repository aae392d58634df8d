// SPDX-License-Identifier: MIT
#include "process_clock.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kCalibrationNs = 1'000'000;
constexpr std::int64_t kStepThresholdNs = 1'000'000;
constexpr std::int64_t kSteerHorizonNs = 1'000'000'000;
constexpr std::int64_t kMaxSteerPpm = 500;

std::int64_t read_clock(clockid_t id) noexcept {
  timespec now;
  clock_gettime(id, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

bool cpu_has_invariant_tsc() noexcept {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

bool kernel_clocksource_is_tsc() noexcept {
  const int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                      O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[32] = {};
  const ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  return n >= 3 && std::strncmp(text, "tsc", 3) == 0 && (n == 3 || text[3] == '\n');
}

// Whether the TSC may time anything at all: an invariant TSC, and not
// STALLWATCH_CLOCK=monotonic.
bool tsc_allowed() noexcept {
  const char* choice = std::getenv("STALLWATCH_CLOCK");
  if (choice != nullptr && std::strcmp(choice, "monotonic") == 0) return false;
  return cpu_has_invariant_tsc();
}

// Whether the TSC is the tick source (given tsc_allowed()).
bool want_tsc() noexcept {
  const char* choice = std::getenv("STALLWATCH_CLOCK");
  if (choice != nullptr && std::strcmp(choice, "tsc") == 0) return true;
  return kernel_clocksource_is_tsc();
}

// The vDSO's clock_gettime, as the C library finds it (the loader lists the
// vDSO as linux-vdso.so.1); null where there is none.
VdsoClockGettime* find_vdso_clock_gettime() noexcept {
  void* vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (vdso == nullptr) return nullptr;
#if defined(__x86_64__)
  void* symbol = dlvsym(vdso, "__vdso_clock_gettime", "LINUX_2.6");
#else
  void* symbol = nullptr;
#endif
  dlclose(vdso);
  if (symbol == nullptr) return nullptr;
  auto* fn = reinterpret_cast<VdsoClockGettime*>(symbol);
  timespec probe{};
  return fn(CLOCK_MONOTONIC, &probe) == 0 ? fn : nullptr;
}

}  // namespace

ProcessClock& ProcessClock::instance() noexcept {
  static ProcessClock* const clock = new ProcessClock();
  return *clock;
}

ProcessClock::Sample ProcessClock::sample_tsc() noexcept {
  Sample best{0, 0};
  std::int64_t best_width = INT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
#if defined(__x86_64__)
    const auto before = static_cast<std::int64_t>(__builtin_ia32_rdtsc());
    const std::int64_t mono = read_clock(CLOCK_MONOTONIC);
    const auto after = static_cast<std::int64_t>(__builtin_ia32_rdtsc());
#else
    const std::int64_t before = 0, mono = read_clock(CLOCK_MONOTONIC), after = 0;
#endif
    if (after - before < best_width) {
      best_width = after - before;
      best = Sample{before + (after - before) / 2, mono};
    }
  }
  return best;
}

ProcessClock::ProcessClock() noexcept {
  vdso_clock_gettime.store(find_vdso_clock_gettime(), std::memory_order_relaxed);
  std::int64_t best_width = INT64_MAX;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::int64_t before = read_clock(CLOCK_REALTIME);
    const std::int64_t mono = read_clock(CLOCK_MONOTONIC);
    const std::int64_t after = read_clock(CLOCK_REALTIME);
    if (after - before < best_width) {
      best_width = after - before;
      epoch_offset_ns_ = before + (after - before) / 2 - mono;
    }
  }
  // Tests simulate a host whose clock is off by a known amount.
  if (const char* shift = std::getenv("STALLWATCH_TEST_ONLY_CLOCK_SHIFT_MS"); shift != nullptr) {
    epoch_offset_ns_ += std::strtoll(shift, nullptr, 10) * 1'000'000;
  }
  TimeBase base;
  base.current = TimeSegment{0, epoch_offset_ns_, std::uint64_t{1} << 32};
  std::uint64_t call_mult = 0;
  if (tsc_allowed()) {
    const Sample first = sample_tsc();
    while (read_clock(CLOCK_MONOTONIC) - first.mono_ns < kCalibrationNs) {
    }
    const Sample second = sample_tsc();
    const std::int64_t ticks = second.ticks - first.ticks;
    const std::int64_t nanos = second.mono_ns - first.mono_ns;
    // Plausible TSC rates only: 100 MHz .. 10 GHz.
    if (ticks > nanos / 10 && ticks < nanos * 10) {
      const auto mult = static_cast<std::uint64_t>((static_cast<Int128>(nanos) << 32) / ticks);
      origin_ = first;
      if (want_tsc()) {
        uses_tsc_ = true;
        base.current = TimeSegment{second.ticks, second.mono_ns + epoch_offset_ns_, mult};
      } else {
        call_mult = mult;
      }
    }
  }
  base.previous = base.current;
  publish(base);
  call_tsc_mult.store(call_mult, std::memory_order_relaxed);
  clock_uses_tsc.store(uses_tsc_, std::memory_order_release);
}

std::int64_t ProcessClock::now_ns() const noexcept {
  if (!uses_tsc_) return read_clock(CLOCK_MONOTONIC) + epoch_offset_ns_;
  for (;;) {
    const std::uint32_t before = sequence_.load(std::memory_order_acquire);
    if ((before & 1) != 0) continue;
    const std::int64_t ticks = read_ticks_ordered();
    const TimeSegment current{current_ticks_.load(std::memory_order_acquire),
                              current_ns_.load(std::memory_order_acquire),
                              current_mult_.load(std::memory_order_acquire)};
    if (sequence_.load(std::memory_order_relaxed) != before) continue;
    if (ticks >= current.anchor_ticks) return current.to_ns(ticks);
    return time_base().to_ns(ticks);
  }
}

TimeBase ProcessClock::time_base() const noexcept {
  for (;;) {
    const std::uint32_t before = sequence_.load(std::memory_order_acquire);
    if ((before & 1) != 0) continue;
    TimeBase base;
    base.current = TimeSegment{current_ticks_.load(std::memory_order_acquire),
                               current_ns_.load(std::memory_order_acquire),
                               current_mult_.load(std::memory_order_acquire)};
    base.previous = TimeSegment{previous_ticks_.load(std::memory_order_acquire),
                                previous_ns_.load(std::memory_order_acquire),
                                previous_mult_.load(std::memory_order_acquire)};
    if (sequence_.load(std::memory_order_relaxed) == before) return base;
  }
}

// A seqlock without fences (ThreadSanitizer does not model them): release
// stores here and acquire loads in the readers order every field against the
// sequence word. Free on x86.
void ProcessClock::publish(const TimeBase& base) noexcept {
  const std::uint32_t sequence = sequence_.load(std::memory_order_relaxed);
  sequence_.store(sequence + 1, std::memory_order_relaxed);
  current_ticks_.store(base.current.anchor_ticks, std::memory_order_release);
  current_ns_.store(base.current.anchor_ns, std::memory_order_release);
  current_mult_.store(base.current.mult, std::memory_order_release);
  previous_ticks_.store(base.previous.anchor_ticks, std::memory_order_release);
  previous_ns_.store(base.previous.anchor_ns, std::memory_order_release);
  previous_mult_.store(base.previous.mult, std::memory_order_release);
  sequence_.store(sequence + 2, std::memory_order_release);
}

void ProcessClock::recalibrate() noexcept {
  if (!uses_tsc_) {
    refine_call_rate();
    return;
  }
  const Sample now = sample_tsc();
  std::lock_guard lock(mutex_);
  const TimeBase base = time_base();
  if (now.ticks <= base.current.anchor_ticks || now.ticks <= origin_.ticks) return;
  const std::int64_t target_ns = now.mono_ns + epoch_offset_ns_;
  std::int64_t anchor_ns = base.current.to_ns(now.ticks);
  std::int64_t error_ns = anchor_ns - target_ns;
  if (error_ns < -kStepThresholdNs) {
    anchor_ns = target_ns;
    error_ns = 0;
  }
  const Int128 rate =
      (static_cast<Int128>(now.mono_ns - origin_.mono_ns) << 32) / (now.ticks - origin_.ticks);
  Int128 steer = rate * -error_ns / kSteerHorizonNs;
  const Int128 limit = rate * kMaxSteerPpm / 1'000'000;
  if (steer > limit) steer = limit;
  if (steer < -limit) steer = -limit;
  TimeBase next;
  next.previous = base.current;
  next.current = TimeSegment{now.ticks, anchor_ns, static_cast<std::uint64_t>(rate + steer)};
  publish(next);
}

// The rate since the first calibration sample: its error shrinks as the run
// goes on (two samples' widths over the whole interval).
void ProcessClock::refine_call_rate() noexcept {
  if (call_tsc_mult.load(std::memory_order_relaxed) == 0) return;
  const Sample now = sample_tsc();
  const std::int64_t ticks = now.ticks - origin_.ticks;
  const std::int64_t nanos = now.mono_ns - origin_.mono_ns;
  if (nanos < kCalibrationNs || ticks <= nanos / 10 || ticks >= nanos * 10) return;
  call_tsc_mult.store(static_cast<std::uint64_t>((static_cast<Int128>(nanos) << 32) / ticks),
                      std::memory_order_relaxed);
}

}  // namespace stallwatch::agent
