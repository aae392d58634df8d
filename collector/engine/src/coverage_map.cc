// SPDX-License-Identifier: MIT
#include "coverage_map.h"

namespace stallwatch::collector::detail {

CoverageMap::CoverageMap() {
  bps_.push_back(Breakpoint{kMinTime, 0});
}

std::size_t CoverageMap::locate(std::int64_t t) const {
  // Batches mostly land at or near the end of what is known: gallop back from
  // the end, then bisect.
  std::size_t hi = bps_.size() - 1;
  if (t >= bps_.time(hi)) return hi;
  std::size_t lo = hi;
  for (std::size_t step = 1; lo > 0; step *= 2) {
    hi = lo;
    lo = lo > step ? lo - step : 0;
    if (bps_.time(lo) <= t) break;
  }
  // bps_.time(lo) <= t < bps_.time(hi)
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (bps_.time(mid) <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void CoverageMap::append_unreported(std::span<const Breakpoint> add) {
  std::size_t i = 0;
  if (add.front().t == bps_.back().t) {
    bps_.truncate(bps_.size() - 1);  // never the first piece: it starts at kMinTime
    if (bps_.back().mask == add.front().mask) i = 1;
  }
  bps_.append(add.subspan(i));
}

void CoverageMap::trim_before(std::int64_t h) {
  bps_.drop_front(locate(h));
  bps_.set_front_to_min();
}

}  // namespace stallwatch::collector::detail
