// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace stallwatch::agent {

// Maps timestamps of another clock (CUPTI's) onto the agent's clock
// (sw_now_ns) from pairs of readings taken at the same instant.
//
// Why pairs rather than CUPTI's timestamp callback: they work with every
// CUPTI version; registering a timestamp callback would change the clock of
// every other CUPTI client in the process (a later torch.profiler session);
// and CUPTI's default clock on Linux is CLOCK_REALTIME, which NTP may slew or
// step, while the agent's is monotonic. The other way round, another client
// may have registered its own callback: torch.profiler's Kineto installs the
// CPU's cycle counter (ticks, not nanoseconds) for the rest of the process,
// so the other clock's rate is measured, not assumed. Mapping: between two
// samples, linear interpolation, so a steady drift or a slew costs nothing;
// beyond the newest (or before the oldest) sample, extrapolation with the
// slope over the whole history kept: bounded to 1 +- kMaxSlopeError for a
// nanosecond clock (a slope within kOtherUnitsSlope of 1), as measured for
// any other. A sample that disagrees with that extrapolation by more than
// kStepNs (plus the bounded drift) means the other clock was stepped or
// replaced: the mapping restarts from it (counted in resets()), and the next
// sample gives its rate. With no sample yet it maps with offset 0.
//
// Keeps the newest kMaxSamples samples (at the CUPTI source's 100 ms cadence,
// about 6 s). A plain value: not thread-safe; the CUPTI source keeps one
// under its lock and converts with copies.
class ClockMap {
 public:
  static constexpr std::size_t kMaxSamples = 64;
  static constexpr std::int64_t kStepNs = 1'000'000;
  static constexpr double kMaxSlopeError = 1e-3;
  static constexpr double kOtherUnitsSlope = 0.05;

  // Adds a pair; false (and ignored) when `source_ns` is not after the newest
  // sample's unless the disagreement is a step, which restarts the mapping.
  bool add_sample(std::int64_t source_ns, std::int64_t agent_ns) noexcept;
  std::int64_t to_agent(std::int64_t source_ns) const noexcept;

  std::size_t size() const noexcept { return count_; }
  std::uint64_t resets() const noexcept { return resets_; }

 private:
  struct Sample {
    std::int64_t source_ns;
    std::int64_t agent_ns;
  };

  double history_slope() const noexcept;
  std::int64_t extrapolate(const Sample& anchor, std::int64_t source_ns) const noexcept;

  std::array<Sample, kMaxSamples> samples_{};  // oldest first, source_ns increasing
  std::size_t count_ = 0;
  std::uint64_t resets_ = 0;
};

}  // namespace stallwatch::agent
