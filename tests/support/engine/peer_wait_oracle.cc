// SPDX-License-Identifier: MIT
#include "peer_wait_oracle.h"

#include <algorithm>

namespace stallwatch::collector::testing {
namespace {

// The step a time follows: the value of the latest mark at or before it.
std::int64_t step_at(const OracleRank& r, std::int64_t t) {
  std::int64_t best_ts = 0;
  std::int64_t step = -1;
  bool found = false;
  for (const auto& s : r.steps) {
    if (s.ts_ns <= t && (!found || s.ts_ns >= best_ts)) {
      best_ts = s.ts_ns;
      step = s.value;
      found = true;
    }
  }
  return step;
}

// The calls of the same step starting before call `c` (ties: shorter first).
std::uint32_t ordinal_of(const OracleRank& r, std::size_t c) {
  const auto& me = r.calls[c];
  const std::int64_t step = step_at(r, me.start_ns);
  std::uint32_t n = 0;
  for (std::size_t k = 0; k < r.calls.size(); ++k) {
    const auto& o = r.calls[k];
    if (k == c || step_at(r, o.start_ns) != step) continue;
    if (o.start_ns < me.start_ns || (o.start_ns == me.start_ns && o.end_ns < me.end_ns) ||
        (o.start_ns == me.start_ns && o.end_ns == me.end_ns && k < c)) {
      ++n;
    }
  }
  return n;
}

}  // namespace

PeerWaitOracle::PeerWaitOracle(std::vector<OracleRank> ranks, std::int64_t origin_ns,
                               std::int64_t span_ns)
    : ranks_(std::move(ranks)), origin_ns_(origin_ns) {
  const auto us = static_cast<std::size_t>(span_ns / 1000);
  waiting_.assign(ranks_.size(), std::vector<bool>(us, false));
  std::size_t taking_part = 0;
  for (const auto& r : ranks_)
    taking_part += r.calls.empty() ? 0 : 1;
  if (taking_part < 2) return;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    for (std::size_t c = 0; c < ranks_[i].calls.size(); ++c) {
      const std::int64_t step = step_at(ranks_[i], ranks_[i].calls[c].start_ns);
      const std::uint32_t ordinal = ordinal_of(ranks_[i], c);
      // The same collective on every rank with calls, and its latest arrival.
      std::vector<std::size_t> match(ranks_.size(), SIZE_MAX);
      std::size_t found = 0;
      for (std::size_t j = 0; j < ranks_.size(); ++j) {
        for (std::size_t k = 0; k < ranks_[j].calls.size(); ++k) {
          if (step_at(ranks_[j], ranks_[j].calls[k].start_ns) == step &&
              ordinal_of(ranks_[j], k) == ordinal) {
            match[j] = k;
            ++found;
          }
        }
      }
      if (found != taking_part) continue;
      std::int64_t latest = INT64_MIN;
      std::size_t last = 0;
      for (std::size_t j = 0; j < ranks_.size(); ++j) {
        if (match[j] == SIZE_MAX) continue;
        const std::int64_t arrival = ranks_[j].calls[match[j]].start_ns - ranks_[j].clock_offset_ns;
        if (arrival > latest) {
          latest = arrival;
          last = j;
        }
      }
      const auto& me = ranks_[i].calls[c];
      const std::int64_t until = std::min(me.end_ns, latest + ranks_[i].clock_offset_ns);
      for (std::int64_t t = me.start_ns; t < until; t += 1000) {
        waiting_[i][static_cast<std::size_t>((t - origin_ns_) / 1000)] = true;
      }
      if (until > me.start_ns) {
        caused_.push_back({last, ranks_[last].calls[match[last]].start_ns, until - me.start_ns});
      }
    }
  }
}

double PeerWaitOracle::peer_wait_seconds(std::size_t i, std::int64_t from_ns,
                                         std::int64_t to_ns) const {
  std::int64_t n = 0;
  for (std::int64_t t = from_ns; t < to_ns; t += 1000) {
    const std::int64_t k = (t - origin_ns_) / 1000;
    if (k >= 0 && k < static_cast<std::int64_t>(waiting_[i].size()) &&
        waiting_[i][static_cast<std::size_t>(k)]) {
      ++n;
    }
  }
  return static_cast<double>(n) * 1e-6;
}

std::int64_t PeerWaitOracle::blame_ns(std::size_t i, std::int64_t from_ns,
                                      std::int64_t to_ns) const {
  std::int64_t total = 0;
  for (const Caused& c : caused_) {
    if (c.rank == i && c.start_ns >= from_ns && c.start_ns < to_ns) total += c.cost_ns;
  }
  return total;
}

}  // namespace stallwatch::collector::testing
