// SPDX-License-Identifier: MIT
#pragma once

// The seeds of tree_report_fuzz: reports as nodes send them, every field of
// the ranks set (the tree tests' full_rank), in the fuzz target's windows.
// Each seed holds the frames of one or more ticks, one after the other (the
// target cuts them apart at their magic). Written by tree_fuzz_seeds; the
// tree tests check that a head of those windows accepts every frame.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tree/comm_calls_delta.h"
#include "tree/node_report.h"
#include "tree_fixtures.h"
#include "tree_fuzz_windows.h"

namespace stallwatch::fuzz {

using Frames = std::vector<std::vector<std::uint8_t>>;

// A node's snapshot at `tick`: ranks [first, first + count) of job "train";
// each rank's COMM calls grow by one per tick.
inline collector::Snapshot node_snapshot(std::uint64_t tick, std::int32_t first,
                                         std::int32_t count) {
  using namespace collector;
  Snapshot s;
  s.tick = tick;
  s.now_ns = kHeadStartNs + 3'000'000 + static_cast<std::int64_t>(tick) * 1'000'000'000;
  s.windows_ns = kWindowsNs;
  s.windows_ns.push_back(0);
  s.jobs.emplace_back().job = "train";
  for (std::int32_t rank = first; rank < first + count; ++rank) {
    RankSnapshot r = test::full_rank("train", rank);
    r.state = RankState::kActive;
    for (std::uint64_t t = 0; t < tick; ++t) {
      const auto at = static_cast<std::int64_t>(400 + 100 * t);
      r.comm_calls.push_back(
          {at, at + 40, static_cast<std::int64_t>(43 + t), static_cast<std::uint32_t>(2 + t)});
    }
    s.jobs.back().ranks.push_back(std::move(r));
  }
  return s;
}

// (file name, frames), in the order a head would receive them.
inline std::vector<std::pair<std::string, Frames>> tree_fuzz_seeds() {
  using namespace collector;
  auto append = [](Frames& to, const Frames& frames) {
    to.insert(to.end(), frames.begin(), frames.end());
  };
  std::vector<std::pair<std::string, Frames>> seeds;
  seeds.emplace_back("one-frame-two-ranks",
                     encode_reports(node_snapshot(1, 0, 2), "node-a", "127.0.0.2:8787"));
  seeds.emplace_back("heartbeat", encode_reports(node_snapshot(1, 0, 0), "node-a", ""));
  for (std::uint16_t version = kOldestReportVersion; version < kReportVersion; ++version) {
    seeds.emplace_back(
        "version-" + std::to_string(version),
        encode_reports(node_snapshot(1, 0, 1), "node-a", "127.0.0.2:8787", nullptr, version));
  }
  // Three ticks of one node: calls go as deltas after the first.
  Frames ticks;
  SentCommCalls sent;
  for (std::uint64_t tick = 1; tick <= 3; ++tick) {
    append(ticks, encode_reports(node_snapshot(tick, 0, 2), "node-a", "127.0.0.2:8787", &sent));
    sent.end_tick();
  }
  seeds.emplace_back("three-ticks-with-deltas", std::move(ticks));
  // Two nodes, each with half of the job's ranks.
  Frames nodes;
  append(nodes, encode_reports(node_snapshot(1, 0, 2), "node-a", "127.0.0.2:8787"));
  append(nodes, encode_reports(node_snapshot(1, 2, 2), "node-b", "127.0.0.3:8787"));
  seeds.emplace_back("two-nodes-one-job", std::move(nodes));
  return seeds;
}

}  // namespace stallwatch::fuzz
