#include "engine/sorted_durations.h"

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
    blocks_.emplace_back().push_back(v);
    return;
  }
  const std::size_t i = std::min(block_for(v), blocks_.size() - 1);
  auto& b = blocks_[i];
  b.insert(std::upper_bound(b.begin(), b.end(), v), v);
  if (b.size() > kBlockMax) {
    const auto half = static_cast<std::ptrdiff_t>(b.size() / 2);
    std::vector<std::int64_t> tail(b.begin() + half, b.end());
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
  if (b.empty()) blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
  --size_;
  indexed_ = false;
  return true;
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
