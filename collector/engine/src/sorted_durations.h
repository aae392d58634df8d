// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stallwatch::collector::detail {

// A multiset of step durations (ns), kept as sorted blocks of at most
// kBlockMax values, each allocated once at that size; a block that erasing
// leaves less than a quarter full is folded into a neighbour. Insert and
// erase cost a search plus a memmove of one block (a merge: two); the k-th
// smallest is a binary search over block start ranks, which
// are recomputed on the first read after a change. A window holds at most
// EngineConfig::max_steps_kept durations, so a tick reads percentiles
// without sorting anything and a step costs no more than a few hundred
// bytes of memmove whatever the window length.
//
// Single-threaded; one per window of a rank.
class SortedDurations {
 public:
  static constexpr std::size_t kBlockMax = 64;

  void insert(std::int64_t v);
  // Removes one occurrence; false when `v` is not present.
  bool erase(std::int64_t v);
  // Replaces the contents with `values` (any order).
  void assign(std::vector<std::int64_t> values);
  void clear();
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The k-th smallest (0-based); requires k < size().
  std::int64_t operator[](std::size_t k) const;
  std::size_t bytes() const;

 private:
  // The first block whose last value is >= v (blocks_.size() when none).
  std::size_t block_for(std::int64_t v) const;

  void merge_small(std::size_t i);
  void index() const;

  std::vector<std::vector<std::int64_t>> blocks_;  // sorted, none empty
  std::size_t size_ = 0;
  mutable std::vector<std::size_t> ranks_;  // rank of each block's first value
  mutable bool indexed_ = false;
};

// The k-th smallest (0-based) element of the union of `a` and the sorted `b`;
// requires k < a.size() + b.size().
std::int64_t kth_of_union(const SortedDurations& a, std::span<const std::int64_t> b, std::size_t k);

// Percentile p in [0, 1] of the union, linearly interpolated between the
// closest ranks (numpy's default), in seconds; NaN when both are empty.
double percentile_seconds(const SortedDurations& a, std::span<const std::int64_t> b, double p);

}  // namespace stallwatch::collector::detail
