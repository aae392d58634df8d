// SPDX-License-Identifier: MIT
#include "pending_coverage.h"

#include <algorithm>
#include <array>

#include "engine/time_math.h"

namespace stallwatch::collector::detail {

std::int64_t PendingCoverage::cell_of(std::int64_t t) const {
  return floor_div(t, res_);
}

void PendingCoverage::merge(BatchCoverage& batch) {
  if (batch.empty()) return;
  // Pieces come in time order: keep the current cell and its histogram.
  std::int64_t cell_end = 0;
  MaskHistogram* h = nullptr;
  const auto count = [&](std::int64_t s, std::int64_t e, ClassMask old_mask, ClassMask new_mask) {
    if (s < bulk_before_ns_) {
      const std::int64_t cut = std::min(e, bulk_before_ns_);
      bulk_[old_mask] -= cut - s;
      bulk_[new_mask] += cut - s;
      s = cut;
    }
    while (s < e) {
      if (h == nullptr || s >= cell_end) {
        const std::int64_t k = cell_of(s);
        cell_end = (k + 1) * res_;
        h = &cells_.at(k);
      }
      const std::int64_t piece_end = std::min(e, cell_end);
      // Bin 0 (no class) is never read.
      if (old_mask != 0) (*h)[old_mask] -= piece_end - s;
      (*h)[new_mask] += piece_end - s;
      s = piece_end;
    }
  };
  const auto add = batch.take();
  if (!map_.appends(add)) {
    map_.merge(add, batch.merge_scratch(), count);
    return;
  }
  // The usual case, a batch after everything known: each piece of `add` is a
  // change from no class. Pieces are summed a cell at a time; those of no
  // class go to bin 0, which is never read.
  const std::size_t last = add.size() - 1;  // add[last] has mask 0
  std::size_t k = 0;
  while (k < last) {
    const std::int64_t s = add[k].t;
    if (s < bulk_before_ns_) {
      count(s, add[k + 1].t, ClassMask{0}, add[k].mask);
      ++k;
      continue;
    }
    const std::int64_t cell = cell_of(s);
    const std::int64_t end = (cell + 1) * res_;
    MaskHistogram& hist = cells_.at(cell);
    for (; k < last && add[k + 1].t <= end; ++k)
      hist[add[k].mask] += add[k + 1].t - add[k].t;
    if (k == last) break;
    // A piece across the cell's end.
    hist[add[k].mask] += end - add[k].t;
    h = nullptr;
    count(end, add[k + 1].t, ClassMask{0}, add[k].mask);
    ++k;
  }
  map_.append_unreported(add);
}

void PendingCoverage::count_change(std::int64_t s, std::int64_t e, ClassMask old_mask,
                                   ClassMask new_mask, std::int64_t bulk_before_ns) {
  if (s < bulk_before_ns) {
    const std::int64_t cut = std::min(e, bulk_before_ns);
    bulk_[old_mask] -= cut - s;
    bulk_[new_mask] += cut - s;
    s = cut;
  }
  for (std::int64_t k = cell_of(s); s < e; ++k) {
    const std::int64_t piece_end = std::min(e, (k + 1) * res_);
    MaskHistogram& h = cells_.at(k);
    h[old_mask] -= piece_end - s;
    h[new_mask] += piece_end - s;
    s = piece_end;
  }
}

Sums PendingCoverage::fold_bulk(std::int64_t from_cell, std::int64_t to_cell) const {
  Sums out;
  fold(bulk_, out.ns);
  for (std::int64_t k = std::max(from_cell, cells_.first()); k < to_cell; ++k) {
    const MaskHistogram* h = cells_.find(k);
    if (h == nullptr) break;
    fold(*h, out.ns);
  }
  return out;
}

CellData PendingCoverage::fold_cell(std::int64_t k) const {
  const MaskHistogram* h = cells_.find(k);
  if (h == nullptr) return CellData{};
  std::array<std::int64_t, kQuantityCount> ns{};
  fold(*h, ns);
  return to_cell(ns);
}

void PendingCoverage::trim_before(std::int64_t horizon_ns) {
  map_.trim_before(horizon_ns);
  cells_.drop_before(cell_of(horizon_ns));
  bulk_.fill(0);
}

}  // namespace stallwatch::collector::detail
