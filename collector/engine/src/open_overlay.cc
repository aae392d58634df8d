// SPDX-License-Identifier: MIT
#include "open_overlay.h"

#include <algorithm>
#include <array>

#include "engine/cell_data.h"

namespace stallwatch::collector::detail {

const std::vector<OpenOverlay::Piece>& OpenOverlay::pieces(
    const std::vector<SourceTracker>& sources, std::int64_t from, std::int64_t to) {
  pieces_.clear();
  if (from >= to) return pieces_;
  open_.clear();
  for (const auto& src : sources) {
    for (const OpenRegion& r : src.open) {
      const ClassMask m = r.mask & kMetricClasses;
      if (r.orphan_end || m == 0) continue;
      const std::int64_t a = std::max(r.begin_eff_ns, from);
      const std::int64_t b = std::min(src.watermark_ns, to);
      if (a < b) open_.push_back(Piece{a, b, m});
    }
  }
  if (open_.empty()) return pieces_;
  if (open_.size() == 1) {
    pieces_.push_back(open_.front());
    return pieces_;
  }
  edges_.clear();
  for (const auto& p : open_) {
    edges_.push_back(Edge{p.start, p.mask, 1});
    edges_.push_back(Edge{p.end, p.mask, -1});
  }
  std::sort(edges_.begin(), edges_.end(), [](const Edge& x, const Edge& y) { return x.t < y.t; });
  std::array<int, 6> counts{};
  ClassMask current = 0;
  std::int64_t at = edges_.front().t;
  for (std::size_t i = 0; i < edges_.size();) {
    const std::int64_t t = edges_[i].t;
    if (current != 0 && t > at) pieces_.push_back(Piece{at, t, current});
    for (; i < edges_.size() && edges_[i].t == t; ++i) {
      for (int c = 0; c < 6; ++c) {
        if (edges_[i].mask & (1u << c)) counts[static_cast<std::size_t>(c)] += edges_[i].delta;
      }
    }
    current = 0;
    for (int c = 0; c < 6; ++c) {
      if (counts[static_cast<std::size_t>(c)] > 0) current = ClassMask(current | (1u << c));
    }
    at = t;
  }
  return pieces_;
}

}  // namespace stallwatch::collector::detail
