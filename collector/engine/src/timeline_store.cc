// SPDX-License-Identifier: MIT
#include "engine/timeline_store.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace stallwatch::collector::detail {

void TimelineBlock::reallocate(std::size_t capacity) {
  auto entries = std::make_unique_for_overwrite<Packed[]>(capacity);
  auto chunk_end = std::make_unique_for_overwrite<std::int64_t[]>(chunks(capacity));
  if (size_ > 0) {
    std::memcpy(entries.get(), entries_.get(), size_ * sizeof(Packed));
    std::memcpy(chunk_end.get(), chunk_end_.get(), chunks(size_) * sizeof(std::int64_t));
  }
  entries_ = std::move(entries);
  chunk_end_ = std::move(chunk_end);
  capacity_ = capacity;
}

void TimelineBlock::reserve(std::size_t n) {
  if (n > capacity_) reallocate(n);
}

void TimelineBlock::shrink() {
  if (size_ == 0) {
    entries_.reset();
    chunk_end_.reset();
    capacity_ = 0;
  } else if (size_ < capacity_) {
    reallocate(size_);
  }
  longs_.shrink_to_fit();
}

TimelineEntry TimelineBlock::entry(std::size_t i, std::uint16_t source) const {
  const Packed& p = entries_[i];
  TimelineEntry e;
  e.start_ns = p.start_ns;
  e.end_ns = end_of(i);
  e.cat = static_cast<NameId>(p.ids & (kNameLimit - 1));
  e.name = static_cast<NameId>((p.ids >> 20) & (kNameLimit - 1));
  e.tid = p.tid;
  e.source = static_cast<std::uint16_t>(p.ids >> 40) | source;
  e.mask = static_cast<ClassMask>((p.ids >> 56) & 0x7f);
  e.loop_end = (p.ids & kLoopEndBit) != 0;
  return e;
}

std::int64_t TimelineBlock::long_end(std::size_t i) const {
  const auto it = std::lower_bound(longs_.begin(), longs_.end(), i,
                                   [](const LongEnd& l, std::size_t k) { return l.index < k; });
  return it != longs_.end() && it->index == i ? it->end_ns : entries_[i].start_ns;
}

std::int64_t TimelineBlock::max_end(std::size_t from, std::size_t to) const {
  std::int64_t m = std::numeric_limits<std::int64_t>::min();
  std::size_t i = from;
  while (i < to) {
    if (i % kChunk == 0 && i + kChunk <= to) {
      m = std::max(m, chunk_end_[i / kChunk]);
      i += kChunk;
    } else {
      m = std::max(m, end_of(i));
      ++i;
    }
  }
  return m;
}

std::size_t TimelineBlock::first_ending_from(std::size_t from, std::int64_t cutoff) const {
  std::size_t i = from;
  while (i < size_) {
    if (i % kChunk == 0 && chunk_end_[i / kChunk] < cutoff) {
      i = std::min(size_, i + kChunk);
    } else if (end_of(i) < cutoff) {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

void TimelineStore::start_own_block() {
  Held& h = blocks_.emplace_back();
  if (own_spare_.capacity() == kOwnBlock) {
    h.block = std::move(own_spare_);
    own_spare_ = TimelineBlock();
  } else {
    if (pool_ != nullptr) pool_->refill_own(h.block);
    if (h.block.capacity() != kOwnBlock) {
      h.block.reserve(kOwnBlock);
      ++own_allocated_;
    }
  }
  own_ = &h.block;
}

void TimelineStore::add_block(TimelineBlock& block, std::uint16_t source) {
  const std::size_t n = block.size();
  // A small block, or one in mostly empty storage, is copied: the store's
  // memory stays within about twice what it holds.
  if (n < kAdoptMin || block.capacity() > 2 * n) {
    for (std::size_t i = 0; i < n; ++i) {
      TimelineEntry e = block.entry(i);
      e.source = source;
      add_region(e);
    }
    block.clear();
    return;
  }
  Held& h = blocks_.emplace_back();
  h.block = std::move(block);
  h.source = source;
  own_ = nullptr;
  live_ += n;
  block = TimelineBlock();
}

void TimelineBlockPool::keep(std::vector<TimelineBlock>& list, TimelineBlock&& block) {
  if (list.size() >= kMaxBlocks || block.capacity() == 0) return;
  block.clear();
  list.push_back(std::move(block));
  block = TimelineBlock();
}

void TimelineBlockPool::take(std::vector<TimelineBlock>& list, TimelineBlock& to) {
  if (to.capacity() != 0 || list.empty()) return;
  to = std::move(list.back());
  list.pop_back();
}

std::size_t TimelineBlockPool::bytes() const {
  std::size_t n = (blocks_.capacity() + own_.capacity()) * sizeof(TimelineBlock);
  for (const TimelineBlock& b : blocks_)
    n += b.bytes();
  for (const TimelineBlock& b : own_)
    n += b.bytes();
  return n;
}

void TimelineStore::pop_front() {
  Held& h = blocks_.front();
  live_ -= h.live();
  if (own_ == &h.block) own_ = nullptr;
  h.block.clear();
  if (h.block.capacity() == kOwnBlock) {
    if (own_spare_.capacity() == 0) {
      own_spare_ = std::move(h.block);
    } else if (pool_ != nullptr) {
      pool_->give_own(std::move(h.block));
    }
  } else if (pool_ != nullptr) {
    pool_->give(std::move(h.block));
  }
  blocks_.pop_front();
}

void TimelineStore::drop_oldest(std::size_t n) {
  while (n > 0) {
    Held& h = blocks_.front();
    const std::size_t live = h.live();
    if (live <= n) {
      dropped_end_ = std::max(dropped_end_, h.block.max_end(h.begin, h.block.size()));
      n -= live;
      pop_front();
    } else {
      dropped_end_ = std::max(dropped_end_, h.block.max_end(h.begin, h.begin + n));
      h.begin += n;
      live_ -= n;
      n = 0;
    }
  }
}

void TimelineStore::expire(std::int64_t watermark_ns) {
  const std::int64_t cutoff = watermark_ns - keep_ns_;
  while (!blocks_.empty()) {
    Held& h = blocks_.front();
    const std::size_t keep_from = h.block.first_ending_from(h.begin, cutoff);
    if (keep_from < h.block.size()) {
      live_ -= keep_from - h.begin;
      h.begin = keep_from;
      break;
    }
    pop_front();
  }
  while (!marks_.empty() && marks_.front().ts_ns < cutoff) {
    pop_step_mark();
    marks_.pop_front();
  }
}

TimelineEntry TimelineStore::region(std::size_t i) const {
  for (const Held& h : blocks_) {
    if (i < h.live()) return h.block.entry(h.begin + i, h.source);
    i -= h.live();
  }
  return TimelineEntry{};
}

std::size_t TimelineStore::bytes() const {
  std::size_t n = marks_.bytes() + blocks_.size() * sizeof(Held) + own_spare_.bytes() +
                  step_marks_.size() * sizeof(StepMark);
  for (const Held& h : blocks_)
    n += h.block.bytes();
  return n;
}

}  // namespace stallwatch::collector::detail
