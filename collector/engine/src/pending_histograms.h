// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cell_data.h"

namespace stallwatch::collector::detail {

// The MaskHistograms of a rank's not-yet-finalized resolution cells
// [first(), first() + size()), in a ring that doubles when it must and
// otherwise keeps its storage: a rank touches only the few cells between its
// finalized horizon and its watermark. Cells are created zeroed on first use,
// at either end.
//
// Single-threaded; owned by one PendingCoverage. References returned by at()
// stay valid until the next at() that creates a cell.
class PendingHistograms {
 public:
  MaskHistogram& at(std::int64_t cell);
  const MaskHistogram* find(std::int64_t cell) const {
    if (size_ == 0 || cell < first_ || cell - first_ >= static_cast<std::int64_t>(size_)) {
      return nullptr;
    }
    return &ring_[slot(static_cast<std::size_t>(cell - first_))];
  }
  // Forgets the cells before `cell`.
  void drop_before(std::int64_t cell);

  bool empty() const { return size_ == 0; }
  std::int64_t first() const { return first_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return ring_.capacity() * sizeof(MaskHistogram); }

 private:
  static constexpr std::size_t kKeep = 16;

  std::size_t slot(std::size_t i) const { return (head_ + i) & (ring_.size() - 1); }
  // Makes room for `n` cells, keeping the live ones in order from slot 0.
  void reserve(std::size_t n);
  // Moves the live cells into a ring of `cap` slots (a power of two >= size_).
  void regrow(std::size_t cap);

  std::vector<MaskHistogram> ring_;  // size 0 or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::int64_t first_ = 0;
};

}  // namespace stallwatch::collector::detail
