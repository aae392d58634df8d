// SPDX-License-Identifier: MIT
#pragma once

// The seeds of tree_report_fuzz (fuzz/tree_report_fuzz.cc): reports as nodes
// send them, their ranks with a value in every kind of field the report
// carries, in the windows of the fuzz target's head. Each seed holds the
// frames of one or more ticks, one after the other (the target cuts them
// apart at their magic). Written by tree_fuzz_seeds (fuzz/tree_seed_corpus.cc);
// the daemon tests check that the target's head accepts every frame.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/snapshot.h"
#include "tree/comm_calls_delta.h"
#include "tree/node_report.h"

namespace stallwatch::collector::fuzz {

// The fuzz target's head: its windows (then the totals) and its clock at the
// first frame. The seeds' nodes are 3 ms ahead of it.
inline const std::vector<std::int64_t> kWindowsNs = {2'000'000'000, 5'000'000'000};
inline constexpr std::int64_t kHeadStartNs = 1'700'000'000'000'000'000;

// Rank `rank` of job "train" at node tick `tick`: active, data-starved, with
// metrics in each window, a worker process, an NVML device, top files and
// kernels, and one COMM call per tick so far.
inline RankSnapshot seed_rank(std::int32_t rank, std::uint64_t tick) {
  RankSnapshot r;
  r.job = "train";
  r.rank = rank;
  r.host = "node-" + std::to_string(rank / 2);
  r.clock_offset_ns = 1'500'000 * rank;
  r.state = RankState::kActive;
  r.device_source = DeviceSignal::kCupti;
  r.start_ns = kHeadStartNs - 60'000'000'000;
  r.last_seen_ns = r.watermark_ns = kHeadStartNs + static_cast<std::int64_t>(tick) * 1'000'000'000;
  r.epoch = 1;
  r.step = 40 + static_cast<std::int64_t>(tick);
  r.verdict = Verdict::kDataStarved;
  std::vector<std::int64_t> windows = kWindowsNs;
  windows.push_back(0);
  for (const std::int64_t w : windows) {
    WindowMetrics& m = r.windows.emplace_back();
    m.window_ns = w;
    m.end_ns = r.watermark_ns;
    m.start_ns = w == 0 ? r.start_ns : m.end_ns - w;
    m.wall_seconds = static_cast<double>(m.end_ns - m.start_ns) / 1e9;
    m.data_stall_ratio = 0.4 + 0.05 * rank;
    m.overlap_ratio = std::nan("");
    m.steps = 12;
    m.step_seconds_p95 = 0.25;
    m.read_bytes_per_second = 1e6;
    m.launches = 30;
    m.launch_idle_ratio = 0.1;
    m.launches_captured = true;
    m.verdict = Verdict::kDataStarved;
    m.cause = Cause::kStorage;
    r.top_files.push_back({w, {{"/data/shard-" + std::to_string(rank), 800, 65536, 0, 2}}, {}});
    r.top_kernels.push_back({w, {{"volta_sgemm_64x64_nn", 400, 5}}, {"", 20, 2}});
  }
  for (std::uint64_t t = 0; t < tick; ++t) {
    const std::int64_t at = kHeadStartNs + static_cast<std::int64_t>(t) * 1'000'000'000;
    r.comm_calls.push_back(
        {at, at + 40'000'000, static_cast<std::int64_t>(40 + t), static_cast<std::uint32_t>(t)});
  }
  r.counters.events_received = 5000 * tick;
  ProcessSnapshot& p = r.processes.emplace_back();
  p.host = r.host;
  p.pid = 1000 + rank;
  p.role = ProcessRole::kWorker;
  p.device_source = DeviceSource::kNvml;
  p.agent_version = "0.1.0";
  GpuDeviceCounters& d = r.gpu_counters.devices.emplace_back();
  d.device = static_cast<std::uint32_t>(rank % 8);
  d.counters[0].latest = 88;
  d.counters[0].latest_ns = r.watermark_ns - 200'000'000;
  d.counters[0].means = {85, 80, std::nan("")};
  r.finalized.horizon_ns = r.watermark_ns - 1'000'000'000;
  r.finalized.step_buckets = {2, 6, 4};
  r.finalized.read_bytes = 1 << 24;
  return r;
}

// A node's snapshot at `tick`: ranks [first, first + count).
inline Snapshot node_snapshot(std::uint64_t tick, std::int32_t first, std::int32_t count) {
  Snapshot s;
  s.tick = tick;
  s.now_ns = kHeadStartNs + 3'000'000 + static_cast<std::int64_t>(tick) * 1'000'000'000;
  s.windows_ns = kWindowsNs;
  s.windows_ns.push_back(0);
  s.jobs.emplace_back().job = "train";
  for (std::int32_t rank = first; rank < first + count; ++rank)
    s.jobs.back().ranks.push_back(seed_rank(rank, tick));
  return s;
}

using Frames = std::vector<std::vector<std::uint8_t>>;

// (file name, frames), in the order a head would receive them.
inline std::vector<std::pair<std::string, Frames>> tree_fuzz_seeds() {
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

}  // namespace stallwatch::collector::fuzz
