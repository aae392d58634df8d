// SPDX-License-Identifier: MIT
// The offline analysis' interval arithmetic (interval_math.h) and the
// engine's union (engine/span_union.h) are written apart so that each checks
// the other: here they must agree on random interval sets, in time order and
// shuffled, with touching and nested intervals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/span_union.h"
#include "interval_math.h"

namespace stallwatch::collector {
namespace {

using Intervals = std::vector<Interval>;

// Short intervals on a small span so that many overlap, touch or nest.
Intervals random_intervals(std::mt19937& rng, int count, bool in_time_order) {
  constexpr std::int64_t kSpan = 5000;
  std::uniform_int_distribution<std::int64_t> start(0, kSpan - 1);
  std::uniform_int_distribution<std::int64_t> length(1, 60);
  std::uniform_int_distribution<std::int64_t> step(-20, 40);
  Intervals out;
  std::int64_t cursor = 0;
  for (int i = 0; i < count; ++i) {
    std::int64_t a = start(rng);
    if (in_time_order) {
      cursor = std::max<std::int64_t>(0, cursor + step(rng));
      a = cursor;
    }
    out.push_back({a, a + length(rng)});
  }
  return out;
}

Intervals spans_of(const detail::SpanUnion& u) {
  Intervals out;
  for (const detail::Span& s : u.spans())
    out.push_back({s.start, s.end});
  return out;
}

Intervals normalized(Intervals v) {
  normalize(v);
  return v;
}

TEST(IntervalUnion, EngineAndAnalysisAgreeOnRandomSets) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const bool in_time_order = seed % 3 != 0;
    const Intervals a = random_intervals(rng, 1 + static_cast<int>(seed % 150), in_time_order);
    const Intervals b = random_intervals(rng, 1 + static_cast<int>(seed % 70), !in_time_order);

    detail::SpanUnion ua, uab;
    for (const Interval& iv : a) {
      ua.add(iv.start, iv.end);
      uab.add(iv.start, iv.end);
    }
    for (const Interval& iv : b)
      uab.add(iv.start, iv.end);

    const Intervals na = normalized(a), nb = normalized(b);
    ASSERT_EQ(spans_of(ua), na);

    Intervals both;
    union_of(na, nb, both);
    ASSERT_EQ(spans_of(uab), both);

    // |A ∩ B| = |A| + |B| - |A ∪ B|, the union taken by the engine's code.
    std::int64_t union_length = 0;
    for (const detail::Span& s : uab.spans())
      union_length += s.end - s.start;
    EXPECT_EQ(intersection_measure(na, nb), measure(na) + measure(nb) - union_length);

    // Cutting at a time: clip_below keeps what split_at leaves behind.
    const std::int64_t cut = std::uniform_int_distribution<std::int64_t>(0, 5000)(rng);
    Intervals after = both, before;
    split_at(after, cut, before);
    uab.clip_below(cut);
    EXPECT_EQ(spans_of(uab), after) << "cut at " << cut;
  }
}

}  // namespace
}  // namespace stallwatch::collector
