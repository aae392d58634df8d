// SPDX-License-Identifier: MIT
#include "clock_map.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace stallwatch::agent {
namespace {

__extension__ using Int128 = __int128;

}  // namespace

bool ClockMap::add_sample(std::int64_t source_ns, std::int64_t agent_ns) noexcept {
  if (count_ > 0) {
    const Sample& newest = samples_[count_ - 1];
    const std::int64_t source_delta = source_ns - newest.source_ns;
    const std::int64_t agent_delta = agent_ns - newest.agent_ns;
    // With one sample the rate is unknown (the other clock may count other
    // units than nanoseconds): a later sample defines it.
    if (count_ >= 2 || source_delta <= 0) {
      const double predicted = static_cast<double>(source_delta) * history_slope();
      const double allowed = static_cast<double>(kStepNs) +
                             kMaxSlopeError * std::fabs(static_cast<double>(agent_delta));
      if (std::fabs(static_cast<double>(agent_delta) - predicted) > allowed) {
        samples_[0] = Sample{source_ns, agent_ns};
        count_ = 1;
        ++resets_;
        return true;
      }
    }
    if (source_delta <= 0) return false;
    if (count_ == kMaxSamples) {
      std::copy(samples_.begin() + 1, samples_.end(), samples_.begin());
      --count_;
    }
  }
  samples_[count_++] = Sample{source_ns, agent_ns};
  return true;
}

double ClockMap::history_slope() const noexcept {
  if (count_ < 2) return 1.0;
  const Sample& first = samples_[0];
  const Sample& last = samples_[count_ - 1];
  const double slope = static_cast<double>(last.agent_ns - first.agent_ns) /
                       static_cast<double>(last.source_ns - first.source_ns);
  // A nanosecond clock: its drift is bounded. Any other (a cycle counter a
  // timestamp callback installed): its measured rate.
  if (std::fabs(slope - 1.0) > kOtherUnitsSlope) return slope;
  return std::clamp(slope, 1.0 - kMaxSlopeError, 1.0 + kMaxSlopeError);
}

std::int64_t ClockMap::extrapolate(const Sample& anchor, std::int64_t source_ns) const noexcept {
  const double delta = static_cast<double>(source_ns - anchor.source_ns) * history_slope();
  return anchor.agent_ns + std::llround(delta);
}

std::int64_t ClockMap::to_agent(std::int64_t source_ns) const noexcept {
  if (count_ == 0) return source_ns;
  if (source_ns <= samples_[0].source_ns) return extrapolate(samples_[0], source_ns);
  if (source_ns >= samples_[count_ - 1].source_ns) {
    return extrapolate(samples_[count_ - 1], source_ns);
  }
  const Sample* end = samples_.data() + count_;
  const Sample* after = std::upper_bound(
      samples_.data(), end, source_ns,
      [](std::int64_t value, const Sample& sample) { return value < sample.source_ns; });
  const Sample& before = *(after - 1);
  const Int128 scaled = static_cast<Int128>(source_ns - before.source_ns) *
                        (after->agent_ns - before.agent_ns) / (after->source_ns - before.source_ns);
  return before.agent_ns + static_cast<std::int64_t>(scaled);
}

}  // namespace stallwatch::agent
