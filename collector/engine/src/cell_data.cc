// SPDX-License-Identifier: MIT
#include "engine/cell_data.h"

namespace stallwatch::collector::detail {
namespace {

constexpr ClassMask bit(EventClass c) {
  return class_bit(c);
}

// For each mask, the set of quantities it contributes to (bit q = Quantity q).
constexpr std::array<std::uint16_t, kMaskBins> make_contributions() {
  std::array<std::uint16_t, kMaskBins> out{};
  for (int m = 0; m < kMaskBins; ++m) {
    const bool c = m & bit(EventClass::kCompute);
    const bool d = m & bit(EventClass::kDeviceBusy);
    const bool f = m & bit(EventClass::kFetch);
    const bool a = m & bit(EventClass::kAppIo);
    const bool i = m & bit(EventClass::kIo);
    const bool k = m & bit(EventClass::kComm);
    const bool q[kQuantityCount] = {
        c,       a,       i,     f, k, d, a && !c, i && !c, c && !a && !i, (a || i) && !c,
        f && !d, f && !c, a && i};
    std::uint16_t bits = 0;
    for (int n = 0; n < kQuantityCount; ++n) {
      if (q[n]) bits = static_cast<std::uint16_t>(bits | (1u << n));
    }
    out[static_cast<std::size_t>(m)] = bits;
  }
  return out;
}

constexpr auto kContributions = make_contributions();

}  // namespace

void Sums::add(const CellData& c) {
  for (int q = 0; q < kQuantityCount; ++q)
    ns[q] += c.ns[q];
  steps += c.steps;
  durations += c.durations;
  duration_sum_ns += c.duration_sum_ns;
  samples += c.samples;
  io.add(c.io);
  launch.add(c.launch);
}

void Sums::sub(const CellData& c) {
  for (int q = 0; q < kQuantityCount; ++q)
    ns[q] -= c.ns[q];
  steps -= c.steps;
  durations -= c.durations;
  duration_sum_ns -= c.duration_sum_ns;
  samples -= c.samples;
  io.sub(c.io);
  launch.sub(c.launch);
}

void Sums::add(const Sums& s) {
  for (int q = 0; q < kQuantityCount; ++q)
    ns[q] += s.ns[q];
  steps += s.steps;
  durations += s.durations;
  duration_sum_ns += s.duration_sum_ns;
  samples += s.samples;
  io.add(s.io);
  launch.add(s.launch);
}

void fold(const MaskHistogram& h, std::array<std::int64_t, kQuantityCount>& out) {
  for (int m = 1; m < kMaskBins; ++m) {
    const std::int64_t len = h[static_cast<std::size_t>(m)];
    if (len == 0) continue;
    const std::uint16_t bits = kContributions[static_cast<std::size_t>(m)];
    for (int q = 0; q < kQuantityCount; ++q) {
      if (bits & (1u << q)) out[static_cast<std::size_t>(q)] += len;
    }
  }
}

CellData to_cell(const std::array<std::int64_t, kQuantityCount>& ns) {
  CellData c;
  for (int q = 0; q < kQuantityCount; ++q) {
    c.ns[static_cast<std::size_t>(q)] = static_cast<std::uint32_t>(ns[static_cast<std::size_t>(q)]);
  }
  return c;
}

}  // namespace stallwatch::collector::detail
