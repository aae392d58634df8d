// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallwatch::agent {

__extension__ using Int128 = __int128;

// One linear piece of the ticks -> Unix epoch nanoseconds mapping:
// ns = anchor_ns + (ticks - anchor_ticks) * mult / 2^32.
struct TimeSegment {
  std::int64_t anchor_ticks = 0;
  std::int64_t anchor_ns = 0;
  std::uint64_t mult = std::uint64_t{1} << 32;  // nanoseconds per tick, 32.32 fixed point

  std::int64_t to_ns(std::int64_t ticks) const noexcept {
    const Int128 delta = static_cast<Int128>(ticks - anchor_ticks) * static_cast<Int128>(mult);
    return anchor_ns + static_cast<std::int64_t>(delta >> 32);
  }
};

// The mapping in force: `current` from its anchor on, `previous` before it.
// A new segment always starts where the previous one reached at its anchor
// (or later, never earlier) and every slope is positive, so to_ns() is
// monotonic in ticks. A plain value: the sender converts a whole drain with
// one snapshot.
struct TimeBase {
  TimeSegment current;
  TimeSegment previous;

  std::int64_t to_ns(std::int64_t ticks) const noexcept {
    return ticks >= current.anchor_ticks ? current.to_ns(ticks) : previous.to_ns(ticks);
  }
};

}  // namespace stallwatch::agent
