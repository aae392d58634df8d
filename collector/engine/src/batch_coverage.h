// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "breakpoint_queue.h"
#include "engine/cell_data.h"
#include "engine/span_union.h"

namespace stallwatch::collector::detail {

// The closed intervals that one batch adds to a rank, gathered so the rank's
// CoverageMap is changed once per batch instead of once per event.
//
// add() files an interval under its class mask, in a SpanUnion per mask
// (O(1) for the in-order intervals of a thread). take() ORs the per-mask
// unions together, smallest first, so the densest one (GPU kernels, say) is
// walked once, into one sorted, coalesced breakpoint list for
// CoverageMap::merge, and clears everything for the next batch.
//
// Single-threaded scratch shared by all ranks of an Engine: each
// RankTracker::ingest empties it before returning. Its memory is that of the
// largest batch seen, never per rank.
class BatchCoverage {
 public:
  // Requires a < b and mask within [1, kMaskBins).
  void add(std::int64_t a, std::int64_t b, ClassMask mask) {
    lists_[mask].add(a, b);
    used_ |= std::uint64_t{1} << mask;
  }
  // Adds all of `spans` under `mask` (within [1, kMaskBins), as for add()),
  // taking its storage when nothing of `mask` is here yet; leaves `spans`
  // empty.
  void adopt(ClassMask mask, SpanUnion& spans) {
    if (spans.empty()) return;
    if (lists_[mask].empty()) {
      lists_[mask].swap(spans);
    } else {
      for (const Span& s : spans.spans())
        lists_[mask].add(s.start, s.end);
    }
    spans.clear();
    used_ |= std::uint64_t{1} << mask;
  }
  bool empty() const { return used_ == 0; }
  // Whether an interval added since the last take() has one of the masks in
  // `bins` (bit m: mask m; bins_with()).
  bool any_in(std::uint64_t bins) const { return (used_ & bins) != 0; }
  // The masks that contain any class of `classes`, as any_in() takes them.
  static constexpr std::uint64_t bins_with(ClassMask classes) {
    std::uint64_t bins = 0;
    for (int m = 1; m < kMaskBins; ++m) {
      if ((m & classes) != 0) bins |= std::uint64_t{1} << m;
    }
    return bins;
  }

  // The union of everything added, as breakpoints (mask from t until the next
  // one; the last has mask 0). Valid until the next add() or take().
  std::span<const Breakpoint> take();

  // Working space for CoverageMap::merge, shared like the rest.
  std::vector<Breakpoint>& merge_scratch() { return merge_scratch_; }

  std::size_t bytes() const;

 private:
  std::array<SpanUnion, kMaskBins> lists_{};
  std::uint64_t used_ = 0;
  std::vector<Breakpoint> acc_;
  std::vector<Breakpoint> out_;
  std::vector<Breakpoint> merge_scratch_;
};

}  // namespace stallwatch::collector::detail
