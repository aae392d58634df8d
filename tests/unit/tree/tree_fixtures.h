// SPDX-License-Identifier: MIT
#pragma once

#include <cmath>
#include <string>

#include "engine/snapshot.h"

namespace stallwatch::test {

// A rank whose every field differs from its default, two windows plus totals.
inline collector::RankSnapshot full_rank(const std::string& job, std::int32_t rank) {
  using namespace collector;
  RankSnapshot r;
  r.job = job;
  r.rank = rank;
  r.host = "node-" + std::to_string(rank);
  r.clock_offset_ns = -7;
  r.state = RankState::kFinished;
  r.device_source = DeviceSignal::kCupti;
  r.start_ns = 100;
  r.end_ns = 900;
  r.last_seen_ns = 950;
  r.watermark_ns = 901;
  r.epoch = 3;
  r.step = 42;
  r.verdict = Verdict::kDataStarved;
  for (std::int64_t w : {2'000'000'000LL, 5'000'000'000LL, 0LL}) {
    WindowMetrics m;
    m.window_ns = w;
    m.start_ns = 100;
    m.end_ns = 900;
    m.wall_seconds = 0.8 + rank;
    m.data_stall_ratio = 0.25;
    m.overlap_ratio = std::nan("");
    m.steps = 17;
    m.step_seconds_p95 = 0.125;
    m.read_bytes_per_second = 4096.5;
    m.write_ops_per_second = 3;
    m.launches = 41;
    m.launch_idle_ratio = 0.75;
    m.launches_captured = true;
    m.cause = Cause::kLaunchBound;
    m.verdict = Verdict::kIoBound;
    r.windows.push_back(m);
  }
  r.comm_calls = {{200, 260, 41, 0}, {300, 340, 42, 1}};
  // Two windows and a "total" entry (window 0): the report carries every one.
  r.top_files = {
      {2'000'000'000, {{"/data/shard-" + std::to_string(rank), 900, 4096, 0, 3}}, {"", 5, 1, 2, 1}},
      {5'000'000'000, {{"/data/a", 1200, 8192, 0, 4}, {"/ckpt", 300, 0, 65536, 2}}, {}},
      {0, {{"/data/a", 5000, 1 << 20, 0, 40}}, {"", 7, 0, 0, 1}}};
  r.top_kernels = {
      {2'000'000'000, {{"ampere_sgemm_128x64_tn", 700, 9}, {"memcpy HtoD", 50, 2}}, {}},
      {5'000'000'000, {{"ampere_sgemm_128x64_tn", 1700, 21}}, {"", 30, 4}}};
  r.counters.events_received = 1000 + static_cast<std::uint64_t>(rank);
  r.counters.late_events = 2;
  ProcessSnapshot p;
  p.host = r.host;
  p.pid = 4242;
  p.role = ProcessRole::kWorker;
  p.device_source = DeviceSource::kNvml;
  p.agent_version = "0.1.0";
  p.finished = true;
  p.open_regions = 3;
  p.counters.lost_batches = 1;
  r.processes.push_back(p);
  GpuDeviceCounters d;
  d.device = 1;
  d.counters[0].latest = 97;
  d.counters[0].latest_ns = 880;
  d.counters[0].means = {95, std::nan(""), 96};
  r.gpu_counters.devices.push_back(d);
  r.gpu_counters.ignored_samples = 5;
  r.finalized.horizon_ns = 600;
  r.finalized.device_busy_ns = 123;
  r.finalized.samples = 2.5;
  r.finalized.step_buckets = {1, 4, 9};
  r.finalized.read_bytes = 1 << 20;
  r.finalized.write_ops = 7;
  return r;
}

}  // namespace stallwatch::test
