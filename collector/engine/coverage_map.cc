#include "engine/coverage_map.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace stallwatch::collector::detail {

CoverageMap::CoverageMap() {
  chunks_.push_back({Seg{kMinTime, 0}});
  firsts_.push_back(kMinTime);
}

CoverageMap::Pos CoverageMap::locate(std::int64_t t) const {
  constexpr int kWalk = 3;
  const std::size_t n = firsts_.size();
  std::size_t c = std::min(finger_.chunk, n - 1);
  int walked = 0;
  while (c + 1 < n && firsts_[c + 1] <= t && walked < kWalk) {
    ++c;
    ++walked;
  }
  while (firsts_[c] > t && walked < kWalk) {
    --c;
    ++walked;
  }
  if (firsts_[c] > t || (c + 1 < n && firsts_[c + 1] <= t)) {
    auto it = std::upper_bound(firsts_.begin(), firsts_.end(), t);
    c = static_cast<std::size_t>(std::distance(firsts_.begin(), it)) - 1;
  }
  const auto& ch = chunks_[c];
  std::size_t i = c == finger_.chunk ? std::min(finger_.index, ch.size() - 1) : ch.size() - 1;
  walked = 0;
  while (i + 1 < ch.size() && ch[i + 1].t <= t && walked < kWalk) {
    ++i;
    ++walked;
  }
  while (i > 0 && ch[i].t > t && walked < kWalk) {
    --i;
    ++walked;
  }
  if (ch[i].t > t || (i + 1 < ch.size() && ch[i + 1].t <= t)) {
    auto it = std::upper_bound(ch.begin(), ch.end(), t,
                               [](std::int64_t v, const Seg& seg) { return v < seg.t; });
    i = static_cast<std::size_t>(std::distance(ch.begin(), it)) - 1;
  }
  finger_ = Pos{c, i};
  return finger_;
}

std::int64_t CoverageMap::end_of(Pos p) const {
  if (p.index + 1 < chunks_[p.chunk].size()) return chunks_[p.chunk][p.index + 1].t;
  if (p.chunk + 1 < chunks_.size()) return chunks_[p.chunk + 1].front().t;
  return kMaxTime;
}

void CoverageMap::next(Pos& p) const {
  if (++p.index == chunks_[p.chunk].size()) {
    ++p.chunk;
    p.index = 0;
  }
}

CoverageMap::Pos CoverageMap::insert_after(Pos& p, Seg s) {
  auto& ch = chunks_[p.chunk];
  ch.insert(ch.begin() + static_cast<std::ptrdiff_t>(p.index + 1), s);
  Pos inserted{p.chunk, p.index + 1};
  if (ch.size() > kChunkMax) {
    const std::size_t half = ch.size() / 2;
    std::vector<Seg> tail;
    tail.reserve(kChunkMax);
    tail.assign(ch.begin() + static_cast<std::ptrdiff_t>(half), ch.end());
    ch.resize(half);
    firsts_.insert(firsts_.begin() + static_cast<std::ptrdiff_t>(p.chunk + 1), tail.front().t);
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(p.chunk + 1), std::move(tail));
    for (Pos* q : {&p, &inserted}) {
      if (q->index >= half) {
        ++q->chunk;
        q->index -= half;
      }
    }
  }
  return inserted;
}

CoverageMap::Pos CoverageMap::insert_two_after(Pos p, Seg s1, Seg s2) {
  auto& ch = chunks_[p.chunk];
  const auto at = ch.begin() + static_cast<std::ptrdiff_t>(p.index + 1);
  const Seg pair[2] = {s1, s2};
  ch.insert(at, pair, pair + 2);
  Pos first{p.chunk, p.index + 1};
  if (ch.size() > kChunkMax) {
    const std::size_t half = ch.size() / 2;
    std::vector<Seg> tail;
    tail.reserve(kChunkMax + 1);
    tail.assign(ch.begin() + static_cast<std::ptrdiff_t>(half), ch.end());
    ch.resize(half);
    firsts_.insert(firsts_.begin() + static_cast<std::ptrdiff_t>(p.chunk + 1), tail.front().t);
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(p.chunk + 1), std::move(tail));
    if (first.index >= half) {
      ++first.chunk;
      first.index -= half;
    }
  }
  return first;
}

// Drops every piece in [a, b] whose mask equals its predecessor's.
void CoverageMap::coalesce(std::int64_t a, std::int64_t b) {
  Pos p = locate(a);
  bool has_prev = false;
  ClassMask prev = 0;
  if (p.index > 0) {
    has_prev = true;
    prev = chunks_[p.chunk][p.index - 1].mask;
  } else if (p.chunk > 0) {
    has_prev = true;
    prev = chunks_[p.chunk - 1].back().mask;
  }
  std::size_t c = p.chunk;
  std::size_t from = p.index;
  while (c < chunks_.size()) {
    auto& ch = chunks_[c];
    std::size_t write = from;
    std::size_t read = from;
    for (; read < ch.size() && ch[read].t <= b; ++read) {
      if (has_prev && ch[read].mask == prev) continue;
      ch[write++] = ch[read];
      prev = ch[read].mask;
      has_prev = true;
    }
    const bool done = read < ch.size();
    ch.erase(ch.begin() + static_cast<std::ptrdiff_t>(write),
             ch.begin() + static_cast<std::ptrdiff_t>(read));
    if (ch.empty()) {
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
      firsts_.erase(firsts_.begin() + static_cast<std::ptrdiff_t>(c));
    } else {
      firsts_[c] = ch.front().t;
      ++c;
    }
    if (done) break;
    from = 0;
  }
}

ClassMask CoverageMap::mask_at(std::int64_t t) const {
  return seg(locate(t)).mask;
}

void CoverageMap::trim_before(std::int64_t h) {
  const Pos p = locate(h);
  chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(p.chunk));
  firsts_.erase(firsts_.begin(), firsts_.begin() + static_cast<std::ptrdiff_t>(p.chunk));
  auto& first = chunks_.front();
  first.erase(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(p.index));
  first.front().t = kMinTime;
  firsts_.front() = kMinTime;
  finger_ = Pos{0, 0};
}

std::size_t CoverageMap::breakpoints() const {
  std::size_t n = 0;
  for (const auto& ch : chunks_)
    n += ch.size();
  return n;
}

std::size_t CoverageMap::bytes() const {
  std::size_t n =
      chunks_.capacity() * sizeof(std::vector<Seg>) + firsts_.capacity() * sizeof(std::int64_t);
  for (const auto& ch : chunks_)
    n += ch.capacity() * sizeof(Seg);
  return n;
}

}  // namespace stallwatch::collector::detail
