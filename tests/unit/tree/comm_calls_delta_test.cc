// SPDX-License-Identifier: MIT
// A node sends each rank's COMM calls as what changed since it last sent
// them: the head rebuilds exactly the node's list from those deltas, a delta
// carries only the calls that changed, and a head that missed one gets the
// list whole within SentCommCalls::kWholeEvery ticks.

#include "tree/comm_calls_delta.h"

#include <gtest/gtest.h>

#include <random>

#include "tree/node_report.h"
#include "tree/remote_ranks.h"

namespace stallwatch::test {
namespace {

using namespace collector;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kMs = 1'000'000;
const std::vector<std::int64_t> kWindows = {2 * kS, 5 * kS, 0};

// A rank's calls as its node's timeline keeps them at `tick` (one tick per
// 500 ms): 4 calls per 10 ms step over the last `kept` steps, minus the
// first `cut` calls of the oldest step, so the rest of that step's calls take
// ordinals from 0.
std::vector<CommCall> calls_at(std::int64_t tick, std::int64_t kept, std::int64_t cut) {
  std::vector<CommCall> out;
  const std::int64_t last = tick * 50;
  for (std::int64_t step = std::max<std::int64_t>(0, last - kept); step < last; ++step) {
    const bool oldest = step == std::max<std::int64_t>(0, last - kept);
    for (std::int64_t k = oldest ? cut : 0; k < 4; ++k) {
      const std::int64_t at = step * 10 * kMs + k * 2 * kMs;
      out.push_back({at, at + kMs, step, static_cast<std::uint32_t>(k - (oldest ? cut : 0))});
    }
  }
  return out;
}

TEST(CommCallsDelta, CarriesOnlyTheCallsThatChanged) {
  // The timeline keeps 400 steps; the oldest has lost 3 of its calls.
  const std::vector<CommCall> before = calls_at(20, 400, 1);
  const std::vector<CommCall> now = calls_at(21, 400, 3);
  const CommCallsDelta d = diff_comm_calls(before, 20, now);
  EXPECT_EQ(d.base, 20u);
  EXPECT_EQ(d.front.size(), 1u);   // the oldest step's last call, now ordinal 0
  EXPECT_EQ(d.tail.size(), 200u);  // 50 new steps of 4 calls
  std::vector<CommCall> held = before;
  ASSERT_TRUE(apply_comm_calls(d, held));
  EXPECT_EQ(held, now);
}

TEST(CommCallsDelta, RebuildsAnyListFromAnyOther) {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto random_calls = [&](std::vector<CommCall> base) {
    // Drop some from the front, re-key some, insert or append some.
    base.erase(base.begin(),
               base.begin() + std::min<int>(pick(0, 5), static_cast<int>(base.size())));
    for (auto& c : base) {
      if (pick(0, 9) == 0) c.ordinal += 1;
    }
    for (int i = pick(0, 6); i > 0; --i) {
      const std::int64_t t = pick(0, 200);
      const auto at = base.begin() + pick(0, static_cast<int>(base.size()));
      base.insert(at,
                  CommCall{t, t + pick(0, 5), pick(-1, 9), static_cast<std::uint32_t>(pick(0, 3))});
    }
    return base;
  };
  std::vector<CommCall> prev;
  for (int round = 0; round < 2000; ++round) {
    const std::vector<CommCall> next =
        pick(0, 30) == 0 ? std::vector<CommCall>{} : random_calls(prev);
    const CommCallsDelta d = diff_comm_calls(prev, 9, next);
    std::vector<CommCall> held = prev;
    ASSERT_TRUE(apply_comm_calls(d, held)) << round;
    ASSERT_EQ(held, next) << round;
    prev = next;
  }
  // A delta does not fit a list shorter than the one it was made against.
  const std::vector<CommCall> a = calls_at(3, 100, 0);
  const std::vector<CommCall> b = calls_at(4, 100, 0);
  std::vector<CommCall> shorter(a.begin(), a.begin() + 10);
  EXPECT_FALSE(apply_comm_calls(diff_comm_calls(a, 3, b), shorter));
  EXPECT_EQ(shorter.size(), 10u);
}

Snapshot node_at(std::int64_t tick, std::int32_t ranks) {
  Snapshot s;
  s.tick = static_cast<std::uint64_t>(tick);
  s.now_ns = tick * kS / 2;
  s.windows_ns = kWindows;
  s.jobs.emplace_back().job = "train";
  for (std::int32_t r = 0; r < ranks; ++r) {
    RankSnapshot& rank = s.jobs.back().ranks.emplace_back();
    rank.job = "train";
    rank.rank = r;
    rank.windows.resize(kWindows.size());
    rank.comm_calls = calls_at(tick, 400, tick % 4);
  }
  return s;
}

// What the head holds of rank `rank` after merging.
std::vector<CommCall> head_calls(RemoteRanks& remote, std::int64_t tick, std::int32_t rank) {
  Snapshot s;
  s.windows_ns = kWindows;
  remote.merge_into(s, tick * kS / 2, EngineConfig{});
  return s.jobs.at(0).ranks.at(static_cast<std::size_t>(rank)).comm_calls;
}

TEST(CommCallsDelta, TheHeadHoldsTheNodesCallsAndCatchesUpAfterALostReport) {
  RemoteRanks remote(kWindows, 60 * kS, 600 * kS);
  SentCommCalls sent;
  std::size_t whole_bytes = 0;
  std::size_t sent_bytes = 0;
  for (std::int64_t tick = 1; tick <= 60; ++tick) {
    const Snapshot s = node_at(tick, 2);
    const auto frames = encode_reports(s, "a", "a:8787", &sent);
    sent.end_tick();
    for (const auto& f : encode_reports(s, "a", "a:8787"))
      whole_bytes += f.size();
    const bool lost = tick == 30;  // sent, but never reaches the head
    for (const auto& f : frames) {
      sent_bytes += f.size();
      if (!lost) remote.accept(f, tick * kS / 2);
    }
    if (lost) continue;
    // Rank 1's list comes whole at tick 39 (its tick + rank is a multiple of
    // kWholeEvery), rank 0's at 40: until then, what the head held.
    for (std::int32_t r = 0; r < 2; ++r) {
      const bool behind = tick > 30 && tick < 40 - r;
      const std::vector<CommCall> held = head_calls(remote, tick, r);
      if (behind) {
        EXPECT_EQ(held, node_at(29, 2).jobs[0].ranks[0].comm_calls) << tick << " rank " << r;
      } else {
        EXPECT_EQ(held, s.jobs[0].ranks[static_cast<std::size_t>(r)].comm_calls)
            << tick << " rank " << r;
      }
    }
  }
  EXPECT_EQ(remote.stats().calls_out_of_step, 9u + 8u);  // ticks 31..39 and 31..38
  // 400 steps of 4 calls per rank every tick, against 50 new steps' worth.
  EXPECT_LT(sent_bytes * 3, whole_bytes);
}

}  // namespace
}  // namespace stallwatch::test
