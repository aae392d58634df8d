// SPDX-License-Identifier: MIT
#include "batch_coverage.h"

#include <algorithm>
#include <limits>

namespace stallwatch::collector::detail {
namespace {

// out = acc | (spans with `mask`), both walked once in time order; returns
// the number of breakpoints written. Written for a sparse `acc` and dense
// spans (the last, largest list): between two breakpoints of `acc` its mask
// is fixed and each span costs two stores. `out` (grown, never shrunk, so
// nothing is zeroed per batch) must not be `acc`.
std::size_t or_merge(std::span<const Breakpoint> acc, const std::vector<Span>& spans,
                     ClassMask mask, std::vector<Breakpoint>& out) {
  const std::size_t most = acc.size() + 2 * spans.size();
  if (out.size() < most) out.resize(most);
  Breakpoint* const begin = out.data();
  Breakpoint* w = begin;
  ClassMask last = 0;
  const auto emit = [&](std::int64_t t, ClassMask m) {
    if (m == last) return;
    *w++ = Breakpoint{t, m};
    last = m;
  };
  const Breakpoint* a = acc.data();
  const Breakpoint* const a_end = a + acc.size();
  ClassMask ma = 0;
  const Span* s = spans.data();
  const Span* const s_end = s + spans.size();
  while (s != s_end) {
    // A run of spans that all end before the next breakpoint of `acc`: the
    // mask under them is `ma` (== last), and spans never touch, so each one
    // is two new breakpoints, or none when `mask` adds nothing to `ma`.
    const std::int64_t next_a = a != a_end ? a->t : std::numeric_limits<std::int64_t>::max();
    if (s->end < next_a) {
      const auto in = static_cast<ClassMask>(ma | mask);
      if (in == ma) {
        while (s != s_end && s->end < next_a)
          ++s;
        continue;
      }
      for (; s != s_end && s->end < next_a; ++s) {
        w[0] = Breakpoint{s->start, in};
        w[1] = Breakpoint{s->end, ma};
        w += 2;
      }
      continue;
    }
    const Span& sp = *s++;
    for (; a != a_end && a->t < sp.start; ++a)
      emit(a->t, ma = a->mask);
    for (; a != a_end && a->t == sp.start; ++a)
      ma = a->mask;
    emit(sp.start, static_cast<ClassMask>(ma | mask));
    for (; a != a_end && a->t < sp.end; ++a)
      emit(a->t, static_cast<ClassMask>((ma = a->mask) | mask));
    for (; a != a_end && a->t == sp.end; ++a)
      ma = a->mask;
    emit(sp.end, ma);
  }
  for (; a != a_end; ++a)
    emit(a->t, a->mask);
  return static_cast<std::size_t>(w - begin);
}

}  // namespace

std::span<const Breakpoint> BatchCoverage::take() {
  std::array<ClassMask, kMaskBins> masks{};
  std::size_t n = 0;
  for (std::uint64_t u = used_; u != 0; u &= u - 1)
    masks[n++] = static_cast<ClassMask>(__builtin_ctzll(u));
  std::sort(masks.begin(), masks.begin() + static_cast<std::ptrdiff_t>(n),
            [&](ClassMask x, ClassMask y) { return lists_[x].size() < lists_[y].size(); });
  std::size_t size = 0;
  for (std::size_t k = 0; k < n; ++k) {
    SpanUnion& list = lists_[masks[k]];
    size = or_merge(std::span<const Breakpoint>(acc_.data(), size), list.spans(), masks[k], out_);
    acc_.swap(out_);
    list.clear();
  }
  used_ = 0;
  return std::span<const Breakpoint>(acc_.data(), size);
}

std::size_t BatchCoverage::bytes() const {
  std::size_t n =
      (acc_.capacity() + out_.capacity() + merge_scratch_.capacity()) * sizeof(Breakpoint);
  for (const auto& l : lists_)
    n += l.spans().capacity() * sizeof(Span);
  return n;
}

}  // namespace stallwatch::collector::detail
