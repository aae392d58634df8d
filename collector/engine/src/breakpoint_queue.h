// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "engine/event_class.h"

namespace stallwatch::collector::detail {

// A step of a piecewise-constant ClassMask over the time line: `mask` holds
// from `t` until the next breakpoint.
struct Breakpoint {
  std::int64_t t;
  ClassMask mask;
};

// A sorted sequence of breakpoints that grows at the back and is cut at the
// front, in fixed blocks of parallel arrays: each time is a 32-bit offset
// from its block's first time and each mask one byte, 5 bytes a breakpoint
// instead of a padded 16. A block whose times span more than 2^32 - 1 ns (a
// rank that paused for seconds) keeps full 64-bit times instead. The front
// breakpoint may be marked as starting at the beginning of time (kMinTime)
// without touching the encoding.
//
// Appending never moves what is kept; blocks emptied at the front are kept
// as spares for the back (at most as many as are in use), so a queue that
// slides along the time line stops allocating once it has reached its
// working size, even when a batch's worth of blocks goes at once.
//
// Times must be pushed in non-decreasing order. Single-threaded; owned by one
// CoverageMap.
class BreakpointQueue {
 public:
  static constexpr std::int64_t kMinTime = std::numeric_limits<std::int64_t>::min();

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  std::int64_t time(std::size_t i) const {
    if (i == 0 && front_is_min_) return kMinTime;
    const std::size_t j = head_ + i;
    const Block& b = *blocks_[j / kBlock];
    return b.wide ? b.wide[j % kBlock] : b.base + b.offset[j % kBlock];
  }
  ClassMask mask(std::size_t i) const {
    const std::size_t j = head_ + i;
    return blocks_[j / kBlock]->mask[j % kBlock];
  }
  Breakpoint operator[](std::size_t i) const { return Breakpoint{time(i), mask(i)}; }
  Breakpoint back() const { return (*this)[size_ - 1]; }

  // `b.t` may be kMinTime only for the first breakpoint of an empty queue.
  void push_back(Breakpoint b);
  void append(std::span<const Breakpoint> bps);
  // Appends breakpoints [from, to) to `out`.
  void copy_to(std::size_t from, std::size_t to, std::vector<Breakpoint>& out) const;
  // The front breakpoint now starts at kMinTime.
  void set_front_to_min() { front_is_min_ = true; }
  // Keeps the first n.
  void truncate(std::size_t n);
  // Drops the first n.
  void drop_front(std::size_t n);

  // Blocks allocated so far, spares reused not counted.
  std::size_t blocks_allocated() const { return blocks_allocated_; }
  std::size_t bytes() const {
    return (blocks_.size() + spares_.size()) * sizeof(Block) +
           (blocks_.capacity() + spares_.capacity()) * sizeof(std::unique_ptr<Block>) +
           wide_blocks_ * kBlock * sizeof(std::int64_t);
  }

 private:
  static constexpr std::size_t kBlock = 512;
  struct Block {
    std::int64_t base = 0;  // the first real time written to the block
    bool has_base = false;
    std::unique_ptr<std::int64_t[]> wide;  // full times, once an offset did not fit
    std::uint32_t offset[kBlock];
    ClassMask mask[kBlock];
  };

  void add_block();
  // Keeps `b` as a spare.
  void recycle(std::unique_ptr<Block> b);
  // Frees the spares beyond the number of blocks in use.
  void trim_spares();
  // Gives back the blocks after the one the next push_back writes to.
  void release_unused();
  void make_wide(Block& b, std::size_t slots);
  void make_narrow(Block& b);

  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::unique_ptr<Block>> spares_;  // narrow, for add_block()
  std::size_t head_ = 0;                        // index of the first breakpoint in blocks_[0]
  std::size_t size_ = 0;
  std::size_t wide_blocks_ = 0;  // blocks holding full times
  std::size_t blocks_allocated_ = 0;
  bool front_is_min_ = false;
};

}  // namespace stallwatch::collector::detail
