// SPDX-License-Identifier: MIT
#include "pending_histograms.h"

#include <utility>

namespace stallwatch::collector::detail {

MaskHistogram& PendingHistograms::at(std::int64_t cell) {
  if (size_ == 0) {
    reserve(1);
    first_ = cell;
    size_ = 1;
    ring_[head_].fill(0);
    return ring_[head_];
  }
  if (cell < first_) {
    const auto extra = static_cast<std::size_t>(first_ - cell);
    reserve(size_ + extra);
    for (std::size_t i = 0; i < extra; ++i) {
      head_ = (head_ + ring_.size() - 1) & (ring_.size() - 1);
      ring_[head_].fill(0);
    }
    size_ += extra;
    first_ = cell;
    return ring_[head_];
  }
  const auto index = static_cast<std::size_t>(cell - first_);
  if (index >= size_) {
    reserve(index + 1);
    for (std::size_t i = size_; i <= index; ++i)
      ring_[slot(i)].fill(0);
    size_ = index + 1;
  }
  return ring_[slot(index)];
}

void PendingHistograms::drop_before(std::int64_t cell) {
  if (size_ == 0 || cell <= first_) return;
  const std::int64_t n = cell - first_;
  if (n >= static_cast<std::int64_t>(size_)) {
    size_ = 0;
    head_ = 0;
    if (ring_.size() > kKeep) ring_ = std::vector<MaskHistogram>(kKeep);
    return;
  }
  head_ = slot(static_cast<std::size_t>(n));
  size_ -= static_cast<std::size_t>(n);
  first_ = cell;
  // Give back what a burst of cells (a watermark jump) made it grow to.
  if (ring_.size() > kKeep && size_ * 4 < ring_.size()) {
    std::size_t cap = kKeep;
    while (cap < size_ * 2)
      cap *= 2;
    regrow(cap);
  }
}

void PendingHistograms::reserve(std::size_t n) {
  if (n <= ring_.size()) return;
  std::size_t cap = ring_.empty() ? 4 : ring_.size();
  while (cap < n)
    cap *= 2;
  regrow(cap);
}

void PendingHistograms::regrow(std::size_t cap) {
  std::vector<MaskHistogram> fresh(cap);
  for (std::size_t i = 0; i < size_; ++i)
    fresh[i] = ring_[slot(i)];
  ring_ = std::move(fresh);
  head_ = 0;
}

}  // namespace stallwatch::collector::detail
