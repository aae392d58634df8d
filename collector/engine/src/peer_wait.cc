// SPDX-License-Identifier: MIT
#include "peer_wait.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace stallwatch::collector::detail {

namespace {

using Key = std::pair<std::int64_t, std::uint32_t>;  // (step, ordinal)

Key key_of(const CommCall& c) {
  return {c.step, c.ordinal};
}

// Indices of `calls` in (step, ordinal) order: as they are when already so
// (comm_calls() gives them in start order, which is that order).
std::vector<std::uint32_t> key_order(const std::vector<CommCall>& calls) {
  std::vector<std::uint32_t> order(calls.size());
  for (std::uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const auto less = [&](std::uint32_t a, std::uint32_t b) {
    return key_of(calls[a]) < key_of(calls[b]);
  };
  if (!std::is_sorted(order.begin(), order.end(), less))
    std::stable_sort(order.begin(), order.end(), less);
  return order;
}

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

}  // namespace

PeerWaits peer_wait_intervals(std::span<const RankCalls> ranks) {
  PeerWaits out;
  out.waits.resize(ranks.size());
  out.blame.resize(ranks.size());
  std::size_t taking_part = 0;
  std::size_t reference = kNone;  // the first rank with calls
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].calls.empty()) continue;
    ++taking_part;
    if (reference == kNone) reference = i;
  }
  if (taking_part < 2) return out;
  // A collective's key is on every rank with calls, so on the reference rank:
  // its keys, in order, are the candidates, and every other rank's calls are
  // matched to them by one merge of two sorted lists (no map: this runs for
  // every job at every tick, over each rank's whole timeline).
  std::vector<std::vector<std::uint32_t>> order(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i)
    order[i] = key_order(ranks[i].calls);
  struct Collective {
    Key key;
    std::size_t seen = 0;  // ranks with a call of this key
    std::size_t seen_last = kNone;
    std::int64_t latest = std::numeric_limits<std::int64_t>::min();  // collector clock
    std::size_t last_rank = 0;
    std::int64_t last_start = 0;  // its clock
    std::int64_t cost_ns = 0;
  };
  std::vector<Collective> collectives;
  for (std::uint32_t c : order[reference]) {
    const Key k = key_of(ranks[reference].calls[c]);
    if (collectives.empty() || collectives.back().key != k) collectives.push_back({k});
  }
  // match[i][c]: the collective of rank i's call c (kNone: no candidate).
  std::vector<std::vector<std::size_t>> match(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankCalls& r = ranks[i];
    match[i].assign(r.calls.size(), kNone);
    std::size_t j = 0;
    for (std::uint32_t c : order[i]) {
      const CommCall& call = r.calls[c];
      const Key k = key_of(call);
      while (j < collectives.size() && collectives[j].key < k)
        ++j;
      if (j == collectives.size()) break;
      if (collectives[j].key != k) continue;
      Collective& col = collectives[j];
      match[i][c] = j;
      if (col.seen_last != i) {
        col.seen_last = i;
        ++col.seen;
      }
      const std::int64_t arrival = call.start_ns - r.clock_offset_ns;
      if (arrival > col.latest) {
        col.latest = arrival;
        col.last_rank = i;
        col.last_start = call.start_ns;
      }
    }
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankCalls& r = ranks[i];
    std::vector<WaitInterval>& waits = out.waits[i];
    for (std::size_t c = 0; c < r.calls.size(); ++c) {
      if (match[i][c] == kNone) continue;
      Collective& k = collectives[match[i][c]];
      if (k.seen != taking_part) continue;
      const CommCall& call = r.calls[c];
      const std::int64_t until = std::min(call.end_ns, k.latest + r.clock_offset_ns);
      if (until > call.start_ns) {
        waits.push_back({call.start_ns, until, k.last_rank});
        k.cost_ns += until - call.start_ns;
      }
    }
    const auto by_start = [](const WaitInterval& a, const WaitInterval& b) {
      return a.start_ns < b.start_ns;
    };
    if (!std::is_sorted(waits.begin(), waits.end(), by_start))
      std::sort(waits.begin(), waits.end(), by_start);
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
  for (const Collective& k : collectives) {
    if (k.seen == taking_part && k.cost_ns > 0) {
      out.blame[k.last_rank].push_back({k.last_start, k.cost_ns});
    }
  }
  for (auto& b : out.blame) {
    const auto by_start = [](const Blame& x, const Blame& y) { return x.start_ns < y.start_ns; };
    if (!std::is_sorted(b.begin(), b.end(), by_start)) std::sort(b.begin(), b.end(), by_start);
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
