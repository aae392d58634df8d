// SPDX-License-Identifier: MIT
#pragma once

// The offline analysis has its own, independent interval arithmetic
// (collector/analyze/src/interval_math.h) so that `stallwatch analyze` can
// check the engine against it; tests/unit/analyze/interval_union_test.cc
// compares the two on random interval sets. Keep them apart: sharing code
// would make that check prove nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stallwatch::collector::detail {

struct Span {
  std::int64_t start;
  std::int64_t end;
};

// The union of half-open intervals, kept as sorted, disjoint, non-touching
// spans. add() is O(1) when the interval starts at or after the last span's
// start (a thread's intervals mostly arrive in time order); anything else is
// a search, tried first next to the previous out-of-order insertion (a second
// thread replaying the same stretch), plus a memmove of the spans after it.
//
// Single-threaded scratch: one batch's intervals of one class mask
// (BatchCoverage), cleared after use, capacity kept.
class SpanUnion {
 public:
  // Requires a < b.
  void add(std::int64_t a, std::int64_t b) {
    if (spans_.empty() || a > spans_.back().end) {
      spans_.push_back(Span{a, b});
      return;
    }
    Span& last = spans_.back();
    if (a >= last.start) {
      last.end = std::max(last.end, b);
      return;
    }
    insert(a, b);
  }

  void clear() {
    spans_.clear();
    hint_ = 0;
  }
  // Cuts everything before `t`.
  void clip_below(std::int64_t t) {
    if (spans_.empty() || spans_.front().start >= t) return;
    const auto first = std::lower_bound(spans_.begin(), spans_.end(), t,
                                        [](const Span& s, std::int64_t v) { return s.end <= v; });
    spans_.erase(spans_.begin(), first);
    if (!spans_.empty()) spans_.front().start = std::max(spans_.front().start, t);
    hint_ = 0;
  }
  void swap(SpanUnion& other) noexcept {
    spans_.swap(other.spans_);
    std::swap(hint_, other.hint_);
  }
  bool empty() const { return spans_.empty(); }
  std::size_t size() const { return spans_.size(); }
  const std::vector<Span>& spans() const { return spans_; }

 private:
  void insert(std::int64_t a, std::int64_t b) {
    for (std::size_t c = hint_; c < hint_ + 2 && c < spans_.size(); ++c) {
      if (spans_[c].start <= a && b <= spans_[c].end) {
        hint_ = c + 1;
        return;
      }
    }
    // [first, last): the spans that overlap or touch [a, b].
    const auto first = std::lower_bound(spans_.begin(), spans_.end(), a,
                                        [](const Span& s, std::int64_t v) { return s.end < v; });
    const auto last = std::upper_bound(first, spans_.end(), b,
                                       [](std::int64_t v, const Span& s) { return v < s.start; });
    hint_ = static_cast<std::size_t>(first - spans_.begin());
    if (first == last) {
      spans_.insert(first, Span{a, b});
      return;
    }
    first->start = std::min(first->start, a);
    first->end = std::max((last - 1)->end, b);
    spans_.erase(first + 1, last);
  }

  std::vector<Span> spans_;
  std::size_t hint_ = 0;  // where the last out-of-order interval went
};

}  // namespace stallwatch::collector::detail
