// SPDX-License-Identifier: MIT
#pragma once

// Exact arithmetic on unions of half-open time intervals [start, end), in ns.
// A "normalized" list is sorted by start, with no two intervals overlapping or
// touching.
//
// Deliberately independent of the engine's union (engine/span_union.h) and
// its coverage maps: `stallwatch analyze` prints DFAnalyzer's and HTA's
// figures, computed here, beside the engine's view of the same trace, and the
// two only check each other if they share no code. The implementations
// differ on purpose too (sort-and-merge of whole lists here, incremental
// insertion with a hint there). tests/unit/analyze/interval_union_test.cc
// compares them on random interval sets.

#include <cstdint>
#include <span>
#include <vector>

namespace stallwatch::collector {

struct Interval {
  std::int64_t start = 0;
  std::int64_t end = 0;
  friend bool operator==(const Interval&, const Interval&) = default;
};

// Sorts and merges `intervals` in place into a normalized list; empty
// intervals are dropped.
void normalize(std::vector<Interval>& intervals);

// Total length of a normalized list.
std::int64_t measure(std::span<const Interval> normalized);

// |a ∩ b| for two normalized lists.
std::int64_t intersection_measure(std::span<const Interval> a, std::span<const Interval> b);

// a ∪ b for two normalized lists, written to `out` (normalized).
void union_of(std::span<const Interval> a, std::span<const Interval> b, std::vector<Interval>& out);

// Moves the parts of normalized `intervals` before `at` to `before` (replacing
// its contents); `intervals` keeps the parts at or after `at`.
void split_at(std::vector<Interval>& intervals, std::int64_t at, std::vector<Interval>& before);

}  // namespace stallwatch::collector
