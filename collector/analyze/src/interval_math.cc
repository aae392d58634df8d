// SPDX-License-Identifier: MIT
#include "interval_math.h"

#include <algorithm>

namespace stallwatch::collector {

void normalize(std::vector<Interval>& intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& x, const Interval& y) { return x.start < y.start; });
  std::size_t out = 0;
  for (const Interval& iv : intervals) {
    if (iv.end <= iv.start) continue;
    if (out > 0 && iv.start <= intervals[out - 1].end) {
      intervals[out - 1].end = std::max(intervals[out - 1].end, iv.end);
    } else {
      intervals[out++] = iv;
    }
  }
  intervals.resize(out);
}

std::int64_t measure(std::span<const Interval> normalized) {
  std::int64_t total = 0;
  for (const Interval& iv : normalized)
    total += iv.end - iv.start;
  return total;
}

std::int64_t intersection_measure(std::span<const Interval> a, std::span<const Interval> b) {
  std::int64_t total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].start, b[j].start);
    const std::int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

void union_of(std::span<const Interval> a, std::span<const Interval> b,
              std::vector<Interval>& out) {
  out.clear();
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const Interval& next =
        (j == b.size() || (i < a.size() && a[i].start <= b[j].start)) ? a[i++] : b[j++];
    if (!out.empty() && next.start <= out.back().end) {
      out.back().end = std::max(out.back().end, next.end);
    } else {
      out.push_back(next);
    }
  }
}

void split_at(std::vector<Interval>& intervals, std::int64_t at, std::vector<Interval>& before) {
  before.clear();
  std::size_t keep_from = 0;
  for (; keep_from < intervals.size() && intervals[keep_from].start < at; ++keep_from) {
    Interval& iv = intervals[keep_from];
    if (iv.end <= at) {
      before.push_back(iv);
      continue;
    }
    before.push_back({iv.start, at});
    iv.start = at;
    break;
  }
  intervals.erase(intervals.begin(), intervals.begin() + static_cast<std::ptrdiff_t>(keep_from));
}

}  // namespace stallwatch::collector
