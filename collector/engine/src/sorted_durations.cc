// SPDX-License-Identifier: MIT
#include "sorted_durations.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

namespace stallwatch::collector::detail {

std::size_t SortedDurations::block_for(std::int64_t v) const {
  auto it = std::lower_bound(
      blocks_.begin(), blocks_.end(), v,
      [](const std::vector<std::int64_t>& b, std::int64_t x) { return b.back() < x; });
  return static_cast<std::size_t>(std::distance(blocks_.begin(), it));
}

void SortedDurations::insert(std::int64_t v) {
  ++size_;
  indexed_ = false;
  if (blocks_.empty()) {
    blocks_.emplace_back().reserve(kBlockMax + 1);
    blocks_.back().push_back(v);
    return;
  }
  // After every value equal to v: a window of equal durations then fills
  // its last block and empties its first, like a queue.
  const auto after = std::upper_bound(
      blocks_.begin(), blocks_.end(), v,
      [](std::int64_t x, const std::vector<std::int64_t>& b) { return x < b.back(); });
  const std::size_t i =
      std::min(static_cast<std::size_t>(std::distance(blocks_.begin(), after)), blocks_.size() - 1);
  auto& b = blocks_[i];
  b.reserve(kBlockMax + 1);  // exactly: a block never grows past it
  b.insert(std::upper_bound(b.begin(), b.end(), v), v);
  if (b.size() <= kBlockMax) return;
  // Full: hand an end value to a neighbour with room before splitting, so
  // blocks stay well filled.
  if (i > 0 && blocks_[i - 1].size() < kBlockMax) {
    blocks_[i - 1].reserve(kBlockMax + 1);
    blocks_[i - 1].push_back(b.front());
    b.erase(b.begin());
  } else if (i + 1 < blocks_.size() && blocks_[i + 1].size() < kBlockMax) {
    auto& next = blocks_[i + 1];
    next.reserve(kBlockMax + 1);
    next.insert(next.begin(), b.back());
    b.pop_back();
  } else {
    const auto half = static_cast<std::ptrdiff_t>(b.size() / 2);
    std::vector<std::int64_t> tail;
    tail.reserve(kBlockMax + 1);
    tail.assign(b.begin() + half, b.end());
    b.resize(static_cast<std::size_t>(half));
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(i + 1), std::move(tail));
  }
}

bool SortedDurations::erase(std::int64_t v) {
  const std::size_t i = block_for(v);
  if (i == blocks_.size()) return false;
  auto& b = blocks_[i];
  auto it = std::lower_bound(b.begin(), b.end(), v);
  if (it == b.end() || *it != v) return false;
  b.erase(it);
  if (b.empty()) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
  } else if (b.size() < kBlockMax / 4) {
    merge_small(i);
  }
  --size_;
  indexed_ = false;
  return true;
}

// Folds block i into a neighbour when the two fit in three quarters of a
// block, so erasing keeps blocks at least a quarter full on average.
void SortedDurations::merge_small(std::size_t i) {
  constexpr std::size_t kMergedMax = kBlockMax * 3 / 4;
  std::size_t into = blocks_.size();
  if (i + 1 < blocks_.size() && blocks_[i].size() + blocks_[i + 1].size() <= kMergedMax) {
    into = i;
  } else if (i > 0 && blocks_[i - 1].size() + blocks_[i].size() <= kMergedMax) {
    into = i - 1;
  }
  if (into == blocks_.size()) return;
  auto& a = blocks_[into];
  const auto& b = blocks_[into + 1];
  a.reserve(kBlockMax + 1);
  a.insert(a.end(), b.begin(), b.end());
  blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(into + 1));
}

void SortedDurations::assign(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  clear();
  for (std::size_t i = 0; i < values.size(); i += kBlockMax / 2) {
    const std::size_t end = std::min(values.size(), i + kBlockMax / 2);
    blocks_.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(i),
                         values.begin() + static_cast<std::ptrdiff_t>(end));
  }
  size_ = values.size();
  indexed_ = false;
}

void SortedDurations::clear() {
  blocks_.clear();
  size_ = 0;
  indexed_ = false;
}

void SortedDurations::index() const {
  ranks_.resize(blocks_.size());
  std::size_t n = 0;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    ranks_[i] = n;
    n += blocks_[i].size();
  }
  indexed_ = true;
}

std::int64_t SortedDurations::operator[](std::size_t k) const {
  if (k >= size_) return std::numeric_limits<std::int64_t>::max();
  if (!indexed_) index();
  const auto it = std::upper_bound(ranks_.begin(), ranks_.end(), k);
  const auto i = static_cast<std::size_t>(std::distance(ranks_.begin(), it)) - 1;
  return blocks_[i][k - ranks_[i]];
}

std::size_t SortedDurations::bytes() const {
  std::size_t n = blocks_.capacity() * sizeof(std::vector<std::int64_t>) +
                  ranks_.capacity() * sizeof(std::size_t);
  for (const auto& b : blocks_)
    n += b.capacity() * sizeof(std::int64_t);
  return n;
}

// Binary search on how many of the k + 1 smallest come from b.
std::int64_t kth_of_union(const SortedDurations& a, std::span<const std::int64_t> b,
                          std::size_t k) {
  if (b.empty()) return a[k];
  const std::size_t need = k + 1;
  std::size_t lo = need > a.size() ? need - a.size() : 0;
  std::size_t hi = std::min(need, b.size());
  while (true) {
    const std::size_t i = lo + (hi - lo) / 2;  // taken from b
    const std::size_t j = need - i;            // taken from a
    if (i < b.size() && j > 0 && a[j - 1] > b[i]) {
      lo = i + 1;
    } else if (i > 0 && j < a.size() && b[i - 1] > a[j]) {
      hi = i - 1;
    } else {
      const std::int64_t from_a = j > 0 ? a[j - 1] : std::numeric_limits<std::int64_t>::min();
      const std::int64_t from_b = i > 0 ? b[i - 1] : std::numeric_limits<std::int64_t>::min();
      return std::max(from_a, from_b);
    }
  }
}

double percentile_seconds(const SortedDurations& a, std::span<const std::int64_t> b, double p) {
  const std::size_t n = a.size() + b.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const double pos = p * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  const double lo_v = static_cast<double>(kth_of_union(a, b, lo));
  double v = lo_v;
  if (frac > 0 && lo + 1 < n) {
    v += frac * (static_cast<double>(kth_of_union(a, b, lo + 1)) - lo_v);
  }
  return v / 1e9;
}

}  // namespace stallwatch::collector::detail
