// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "breakpoint_queue.h"
#include "engine/event_class.h"

namespace stallwatch::collector::detail {

// Which classes cover each instant of one rank's not-yet-finalized time: a
// piecewise-constant ClassMask over the time line, kept as one sorted,
// coalesced sequence of breakpoints (no two neighbours with the same mask) in
// a BreakpointQueue: appending and trimming the past never move what is kept.
//
// Add-only: merge(B) ORs a whole breakpoint list into the map in one walk of
// the pieces it overlaps and reports every piece whose mask changed, so the
// caller keeps its per-mask time histograms exact in O(pieces touched). A
// batch that lies after everything known (the usual case) is appended; one
// that lands earlier (another process of the rank a little behind) costs a
// walk of the pieces from there to the end, rewritten once.
//
// Single-threaded, owned by one PendingCoverage. After trim_before(h) nothing
// before h is tracked any more; callers only add and query at or after it.
class CoverageMap {
 public:
  static constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();

  CoverageMap();

  // ORs `add` into the map. `add` is sorted by t, coalesced, starts after
  // kMinTime and ends with mask 0 (BatchCoverage::take() output). Calls
  // on_change(start, end, old_mask, new_mask) once per changed piece, in time
  // order. `scratch` is working space (shared by the engine's ranks).
  template <class OnChange>
  void merge(std::span<const Breakpoint> add, std::vector<Breakpoint>& scratch,
             OnChange&& on_change);

  // True when merge(add) appends: `add` starts at or after the last
  // breakpoint, whose piece has no class.
  bool appends(std::span<const Breakpoint> add) const {
    return add.size() >= 2 && add.front().t >= bps_.back().t && bps_.back().mask == 0;
  }
  // merge() of an `add` for which appends() holds, reporting nothing: every
  // piece of `add` with a class is a change from no class, which the caller
  // reads from `add` itself.
  void append_unreported(std::span<const Breakpoint> add);

  // Unions `mask` over [a, b) (no-op when a >= b or mask == 0), reporting
  // changes as merge() does.
  template <class OnChange>
  void add(std::int64_t a, std::int64_t b, ClassMask mask, OnChange&& on_change) {
    if (a >= b || mask == 0) return;
    const Breakpoint two[2] = {{a, mask}, {b, 0}};
    std::vector<Breakpoint> scratch;
    merge(two, scratch, on_change);
  }

  // Calls fn(start, end, mask) for the pieces covering [a, b), in time order.
  template <class Fn>
  void for_each(std::int64_t a, std::int64_t b, Fn&& fn) const;

  ClassMask mask_at(std::int64_t t) const { return bps_.mask(locate(t)); }

  // Forgets everything before h.
  void trim_before(std::int64_t h);

  std::size_t breakpoints() const { return bps_.size(); }
  std::size_t bytes() const { return bps_.bytes(); }

 private:
  template <class OnChange>
  void append(std::span<const Breakpoint> add, OnChange&& on_change);
  // Index of the piece containing t.
  std::size_t locate(std::int64_t t) const;
  std::int64_t end_of(std::size_t i) const {
    return i + 1 < bps_.size() ? bps_.time(i + 1) : kMaxTime;
  }

  BreakpointQueue bps_;  // bps_.time(0) == kMinTime
};

template <class OnChange>
void CoverageMap::merge(std::span<const Breakpoint> add, std::vector<Breakpoint>& scratch,
                        OnChange&& on_change) {
  if (add.size() < 2) return;
  if (appends(add)) {
    append(add, on_change);
    return;
  }
  const std::size_t first = locate(add.front().t);
  // The last piece that starts before the end of `add` (where its mask turns 0).
  const std::size_t last = locate(add.back().t - 1);
  // A sentinel mask no piece has, so the first piece is always written when
  // it has no predecessor.
  ClassMask written = first > 0 ? bps_.mask(first - 1) : ClassMask{0xFF};
  // The pieces from `first` to the end move to a plain array closed by a
  // sentinel; the walk writes the new pieces in their place, then the tail
  // after `last` goes back.
  std::vector<Breakpoint>& old = scratch;
  old.clear();
  bps_.copy_to(first, bps_.size(), old);
  old.push_back(Breakpoint{kMaxTime, 0});
  bps_.truncate(first);
  const Breakpoint* a = add.data();
  const Breakpoint* const a_end = a + add.size();
  const Breakpoint* m = old.data();
  const Breakpoint* const m_last = m + (last - first);
  ClassMask am = 0;
  std::int64_t x = m->t;
  for (;;) {
    for (; a != a_end && a->t <= x; ++a)
      am = a->mask;
    const std::int64_t map_end = (m + 1)->t;
    const std::int64_t next = a != a_end && a->t < map_end ? a->t : map_end;
    const ClassMask was = m->mask;
    const auto now = static_cast<ClassMask>(was | am);
    if (now != was) on_change(x, next, was, now);
    if (now != written) {
      bps_.push_back(Breakpoint{x, now});
      written = now;
    }
    x = next;
    if (x == map_end) {
      if (m == m_last) break;
      ++m;
    }
  }
  const Breakpoint* tail = m_last + 1;
  const Breakpoint* const tail_end = old.data() + old.size() - 1;  // before the sentinel
  if (tail != tail_end && tail->mask == written) ++tail;
  bps_.append(std::span<const Breakpoint>(tail, tail_end));
}

// `add` starts in the last piece, which has mask 0: every piece of `add`
// with a class is a change, and its breakpoints are the new tail.
template <class OnChange>
void CoverageMap::append(std::span<const Breakpoint> add, OnChange&& on_change) {
  for (std::size_t k = 0; k + 1 < add.size(); ++k) {
    if (add[k].mask != 0) on_change(add[k].t, add[k + 1].t, ClassMask{0}, add[k].mask);
  }
  append_unreported(add);
}

template <class Fn>
void CoverageMap::for_each(std::int64_t a, std::int64_t b, Fn&& fn) const {
  if (a >= b) return;
  std::size_t i = locate(a);
  std::int64_t cur = a;
  while (cur < b) {
    const std::int64_t seg_end = end_of(i);
    const std::int64_t piece_end = seg_end < b ? seg_end : b;
    fn(cur, piece_end, bps_.mask(i));
    cur = piece_end;
    ++i;
  }
}

}  // namespace stallwatch::collector::detail
