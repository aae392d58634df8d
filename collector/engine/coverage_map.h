#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector::detail {

// Which classes cover each instant of one rank's not-yet-finalized time: a
// piecewise-constant ClassMask over the time line.
//
// Add-only: add([a, b), K) turns every piece's mask m inside [a, b) into
// m | K and reports each piece whose mask changed, so the caller keeps its
// per-mask time histograms exact in O(pieces inside [a, b)); neighbours with
// equal masks are merged again afterwards. Breakpoints are kept sorted in
// chunks of at most kChunkMax, so an insertion in the middle (another
// process's batch arriving a little later) costs a search plus a memmove of
// one chunk. Searches start from the chunk used last (events of one batch
// land close to each other) and fall back to a binary search over a
// contiguous directory of chunk start times.
//
// Single-threaded, owned by one RankTracker. After trim_before(h) nothing
// before h is tracked any more; callers only add and query at or after it.
class CoverageMap {
 public:
  static constexpr std::size_t kChunkMax = 32;
  static constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kMaxTime = std::numeric_limits<std::int64_t>::max();

  CoverageMap();

  // Unions `mask` over [a, b) (no-op when a >= b or mask == 0). Calls
  // on_change(start, end, old_mask, new_mask) once per changed piece, in time order.
  template <class OnChange>
  void add(std::int64_t a, std::int64_t b, ClassMask mask, OnChange&& on_change);

  // Calls fn(start, end, mask) for the pieces covering [a, b), in time order.
  template <class Fn>
  void for_each(std::int64_t a, std::int64_t b, Fn&& fn) const;

  ClassMask mask_at(std::int64_t t) const;

  // Forgets everything before h.
  void trim_before(std::int64_t h);

  std::size_t breakpoints() const;
  std::size_t bytes() const;

 private:
  struct Seg {
    std::int64_t t;  // the piece covers [t, next t)
    ClassMask mask;
  };
  struct Pos {
    std::size_t chunk;
    std::size_t index;
  };

  Seg& seg(Pos p) { return chunks_[p.chunk][p.index]; }
  const Seg& seg(Pos p) const { return chunks_[p.chunk][p.index]; }
  Pos locate(std::int64_t t) const;  // the piece containing t
  std::int64_t end_of(Pos p) const;  // start of the next piece, or kMaxTime
  void next(Pos& p) const;
  Pos insert_after(Pos& p, Seg s);              // keeps p on the same piece
  Pos insert_two_after(Pos p, Seg s1, Seg s2);  // returns s1's position
  void coalesce(std::int64_t a, std::int64_t b);

  std::vector<std::vector<Seg>> chunks_;  // never empty; first piece starts at kMinTime
  std::vector<std::int64_t> firsts_;      // chunks_[i].front().t
  mutable Pos finger_{0, 0};              // the piece located last (a hint only)
};

template <class OnChange>
void CoverageMap::add(std::int64_t a, std::int64_t b, ClassMask mask, OnChange&& on_change) {
  if (a >= b || mask == 0) return;
  Pos p = locate(a);
  std::int64_t cur = a;
  bool changed = false;
  while (cur < b) {
    const std::int64_t seg_end = end_of(p);
    const std::int64_t piece_end = seg_end < b ? seg_end : b;
    const ClassMask old_mask = seg(p).mask;
    const ClassMask new_mask = old_mask | mask;
    if (new_mask != old_mask) {
      changed = true;
      if (seg(p).t < cur && piece_end < seg_end) {
        p = insert_two_after(p, Seg{cur, new_mask}, Seg{piece_end, old_mask});
      } else {
        if (seg(p).t < cur) p = insert_after(p, Seg{cur, old_mask});
        if (piece_end < seg_end) insert_after(p, Seg{piece_end, old_mask});
      }
      seg(p).mask = new_mask;
      on_change(cur, piece_end, old_mask, new_mask);
    }
    cur = piece_end;
    if (cur < b) next(p);
  }
  if (changed) coalesce(a, b);
}

template <class Fn>
void CoverageMap::for_each(std::int64_t a, std::int64_t b, Fn&& fn) const {
  if (a >= b) return;
  Pos p = locate(a);
  std::int64_t cur = a;
  while (cur < b) {
    const std::int64_t seg_end = end_of(p);
    const std::int64_t piece_end = seg_end < b ? seg_end : b;
    fn(cur, piece_end, seg(p).mask);
    cur = piece_end;
    if (cur < b) next(p);
  }
}

}  // namespace stallwatch::collector::detail
