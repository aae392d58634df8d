// SPDX-License-Identifier: MIT
#include "peer_wait.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace stallwatch::collector::detail {

PeerWaits peer_wait_intervals(std::span<const RankCalls> ranks) {
  PeerWaits out;
  out.waits.resize(ranks.size());
  out.blame.resize(ranks.size());
  std::size_t taking_part = 0;
  for (const RankCalls& r : ranks) {
    if (!r.calls.empty()) ++taking_part;
  }
  if (taking_part < 2) return out;
  struct Collective {
    std::size_t seen = 0;
    std::int64_t latest = std::numeric_limits<std::int64_t>::min();  // collector clock
    std::size_t last_rank = 0;
    std::int64_t last_start = 0;  // its clock
    std::int64_t cost_ns = 0;
  };
  std::map<std::pair<std::int64_t, std::uint32_t>, Collective> collectives;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (const CommCall& c : ranks[i].calls) {
      Collective& k = collectives[std::pair{c.step, c.ordinal}];
      ++k.seen;
      const std::int64_t arrival = c.start_ns - ranks[i].clock_offset_ns;
      if (arrival > k.latest) {
        k.latest = arrival;
        k.last_rank = i;
        k.last_start = c.start_ns;
      }
    }
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankCalls& r = ranks[i];
    std::vector<WaitInterval>& waits = out.waits[i];
    for (const CommCall& c : r.calls) {
      Collective& k = collectives.at(std::pair{c.step, c.ordinal});
      if (k.seen != taking_part) continue;
      const std::int64_t until = std::min(c.end_ns, k.latest + r.clock_offset_ns);
      if (until > c.start_ns) {
        waits.push_back({c.start_ns, until, k.last_rank});
        k.cost_ns += until - c.start_ns;
      }
    }
    std::sort(waits.begin(), waits.end(),
              [](const WaitInterval& a, const WaitInterval& b) { return a.start_ns < b.start_ns; });
    std::size_t kept = 0;
    for (const WaitInterval& w : waits) {
      if (kept > 0 && w.start_ns <= waits[kept - 1].end_ns) {
        waits[kept - 1].end_ns = std::max(waits[kept - 1].end_ns, w.end_ns);
        waits[kept - 1].waiting_for = w.waiting_for;
      } else {
        waits[kept++] = w;
      }
    }
    waits.resize(kept);
  }
  for (const auto& [key, k] : collectives) {
    if (k.seen == taking_part && k.cost_ns > 0) {
      out.blame[k.last_rank].push_back({k.last_start, k.cost_ns});
    }
  }
  for (auto& b : out.blame) {
    std::sort(b.begin(), b.end(),
              [](const Blame& x, const Blame& y) { return x.start_ns < y.start_ns; });
  }
  return out;
}

std::int64_t overlap_ns(std::span<const WaitInterval> waits, std::int64_t from, std::int64_t to) {
  std::int64_t total = 0;
  for (const WaitInterval& w : waits) {
    const std::int64_t a = std::max(w.start_ns, from);
    const std::int64_t b = std::min(w.end_ns, to);
    if (b > a) total += b - a;
  }
  return total;
}

}  // namespace stallwatch::collector::detail
