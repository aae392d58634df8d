// SPDX-License-Identifier: MIT
#include "breakpoint_queue.h"

#include <algorithm>
#include <utility>

namespace stallwatch::collector::detail {
namespace {

constexpr std::uint64_t kMaxOffset = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void BreakpointQueue::add_block() {
  if (spares_.empty()) {
    blocks_.push_back(std::make_unique<Block>());
    ++blocks_allocated_;
    return;
  }
  blocks_.push_back(std::move(spares_.back()));
  spares_.pop_back();
}

void BreakpointQueue::recycle(std::unique_ptr<Block> b) {
  make_narrow(*b);
  spares_.push_back(std::move(b));
}

void BreakpointQueue::trim_spares() {
  const std::size_t keep = std::max<std::size_t>(1, blocks_.size());
  if (spares_.size() > keep) spares_.resize(keep);
}

void BreakpointQueue::make_narrow(Block& b) {
  if (!b.wide) return;
  b.wide.reset();
  --wide_blocks_;
}

void BreakpointQueue::make_wide(Block& b, std::size_t slots) {
  b.wide = std::make_unique<std::int64_t[]>(kBlock);
  ++wide_blocks_;
  for (std::size_t k = 0; k < slots; ++k)
    b.wide[k] = b.base + b.offset[k];
}

void BreakpointQueue::push_back(Breakpoint bp) {
  append(std::span<const Breakpoint>(&bp, 1));
}

void BreakpointQueue::append(std::span<const Breakpoint> bps) {
  std::size_t i = 0;
  if (size_ == 0 && !bps.empty()) {
    head_ = 0;
    front_is_min_ = bps.front().t == kMinTime;
  }
  while (i < bps.size()) {
    const std::size_t j = head_ + size_;
    if (j == blocks_.size() * kBlock) add_block();
    Block& block = *blocks_[j / kBlock];
    const std::size_t slot = j % kBlock;
    const std::size_t n = std::min(kBlock - slot, bps.size() - i);
    if (slot == 0) {
      make_narrow(block);
      block.has_base = false;
    }
    std::size_t k = 0;
    if (!block.has_base && !block.wide) {
      if (size_ == 0 && front_is_min_) {
        block.mask[slot] = bps[i].mask;
        block.offset[slot] = 0;  // never read: time(0) is kMinTime
        k = 1;
      }
      if (k < n) {
        block.base = bps[i + k].t;
        block.has_base = true;
      }
    }
    if (k < n && block.has_base && !block.wide && bps[i + k].t >= block.base &&
        static_cast<std::uint64_t>(bps[i + n - 1].t) - static_cast<std::uint64_t>(block.base) <=
            kMaxOffset) {
      // Sorted: when the first and last fit, all do. Two loops through
      // locals: a mask (a byte) stored could alias anything and would make
      // every later load repeat.
      const Breakpoint* const from = bps.data() + i + k;
      const std::int64_t base = block.base;
      std::uint32_t* const offsets = block.offset + slot + k;
      ClassMask* const masks = block.mask + slot + k;
      const std::size_t count = n - k;
      for (std::size_t q = 0; q < count; ++q)
        offsets[q] = static_cast<std::uint32_t>(from[q].t - base);
      for (std::size_t q = 0; q < count; ++q)
        masks[q] = from[q].mask;
      k = n;
    }
    for (; k < n && !block.wide; ++k) {
      const Breakpoint& b = bps[i + k];
      block.mask[slot + k] = b.mask;
      if (!block.has_base) {
        if (size_ + k == 0 && front_is_min_) {
          block.offset[slot + k] = 0;  // never read: time(0) is kMinTime
          continue;
        }
        block.base = b.t;
        block.has_base = true;
      }
      // Unsigned: a time before the base wraps to a huge offset, too.
      const std::uint64_t offset =
          static_cast<std::uint64_t>(b.t) - static_cast<std::uint64_t>(block.base);
      if (offset > kMaxOffset) {
        make_wide(block, slot + k);
        break;
      }
      block.offset[slot + k] = static_cast<std::uint32_t>(offset);
    }
    for (; k < n; ++k) {
      block.wide[slot + k] = bps[i + k].t;
      block.mask[slot + k] = bps[i + k].mask;
    }
    size_ += n;
    i += n;
  }
}

void BreakpointQueue::copy_to(std::size_t from, std::size_t to,
                              std::vector<Breakpoint>& out) const {
  out.reserve(out.size() + (to - from));
  const std::size_t first = out.size();
  while (from < to) {
    const std::size_t j = head_ + from;
    const Block& block = *blocks_[j / kBlock];
    const std::size_t slot = j % kBlock;
    const std::size_t n = std::min(kBlock - slot, to - from);
    if (block.wide) {
      for (std::size_t k = 0; k < n; ++k)
        out.push_back(Breakpoint{block.wide[slot + k], block.mask[slot + k]});
    } else {
      for (std::size_t k = 0; k < n; ++k)
        out.push_back(Breakpoint{block.base + block.offset[slot + k], block.mask[slot + k]});
    }
    if (from == 0 && front_is_min_) out[first].t = kMinTime;
    from += n;
  }
}

void BreakpointQueue::truncate(std::size_t n) {
  if (n >= size_) return;
  size_ = n;
  if (size_ == 0) {
    head_ = 0;
    front_is_min_ = false;
  }
  release_unused();
}

void BreakpointQueue::release_unused() {
  const std::size_t used = std::max<std::size_t>(1, (head_ + size_ + kBlock - 1) / kBlock);
  while (blocks_.size() > used) {
    recycle(std::move(blocks_.back()));
    blocks_.pop_back();
  }
  trim_spares();
}

void BreakpointQueue::drop_front(std::size_t n) {
  if (n == 0) return;
  front_is_min_ = false;
  if (n >= size_) {
    size_ = 0;
    head_ = 0;
    release_unused();
    return;
  }
  head_ += n;
  size_ -= n;
  const std::size_t emptied = head_ / kBlock;
  if (emptied == 0) return;
  for (std::size_t b = 0; b < emptied; ++b)
    recycle(std::move(blocks_[b]));
  blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(emptied));
  head_ -= emptied * kBlock;
  trim_spares();
}

}  // namespace stallwatch::collector::detail
