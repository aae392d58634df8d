// SPDX-License-Identifier: MIT
// The collector tree at scale: one head (default configuration: windows
// 10 s / 60 s / 300 s, tick 500 ms, CURVE on 127.0.0.2) fed by N nodes of M
// ranks each. One node is a real stallwatchd (--upstream, CURVE) whose M
// ranks stream real batches; the other N - 1 are simulated: each has its own
// CURVE connection and sends, every tick, a report of M ranks encoded by the
// node's own encoder (tree/node_report.h), the size and shape a real node's
// would have. Measured at the head: RSS per rank (after all ranks are held,
// minus the idle head), every tick's duration (tick_seconds_last, sampled
// twice per tick) and the latency from a batch sent to the real node to its
// effect (the rank's watermark) at the head's API, in head ticks. Prints
// figures, asserts nothing, ends with one JSON line.
//
//   bench_tree [--nodes 64] [--ranks 64] [--seconds 60]

#include <zmq.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "engine/engine_config.h"
#include "frame_template.h"
#include "proc_stats.h"
#include "tree/node_report.h"

namespace stallwatch::bench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using collector::RankSnapshot;
using collector::Snapshot;

constexpr std::int64_t kTickNs = 500'000'000;

json get_json(const test::DaemonProcess& d, const std::string& target) {
  const auto r = d.get(target);
  if (r.status != 200) return nullptr;
  return json::parse(r.body, nullptr, false);
}

std::string key_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') return line.substr(0, 40);
  }
  return {};
}

std::vector<std::int64_t> head_windows() {
  auto w = collector::EngineConfig{}.windows_ns;
  w.push_back(0);
  return w;
}

// One simulated node's ranks as its engine would publish them.
Snapshot node_snapshot(int node, int ranks, std::int64_t now_ns, std::uint64_t tick) {
  Snapshot s;
  s.now_ns = now_ns;
  s.tick = tick;
  s.windows_ns = head_windows();
  s.jobs.emplace_back().job = "bench";
  for (int i = 0; i < ranks; ++i) {
    RankSnapshot& r = s.jobs.back().ranks.emplace_back();
    r.job = "bench";
    r.rank = node * ranks + i;
    r.host = "node-" + std::to_string(node);
    r.start_ns = now_ns - 600'000'000'000;
    r.end_ns = r.watermark_ns = now_ns;
    r.last_seen_ns = now_ns;
    r.step = static_cast<std::int64_t>(tick);
    for (std::int64_t w : s.windows_ns) {
      collector::WindowMetrics m;
      m.window_ns = w;
      m.start_ns = now_ns - (w == 0 ? 600'000'000'000 : w);
      m.end_ns = now_ns;
      m.wall_seconds = static_cast<double>(m.end_ns - m.start_ns) / 1e9;
      m.compute_seconds = m.wall_seconds * 0.6;
      m.fetch_seconds = m.wall_seconds * 0.3;
      m.data_stall_ratio = 0.2 + 0.001 * i;
      m.steps = 100;
      m.step_seconds_p50 = 0.1;
      m.step_seconds_p95 = 0.12;
      r.windows.push_back(m);
    }
    r.counters.events_received = tick * 1000;
    collector::ProcessSnapshot& p = r.processes.emplace_back();
    p.host = r.host;
    p.pid = 1000 + i;
    p.agent_version = "0.1.0";
    p.start_ns = r.start_ns;
    p.last_seen_ns = now_ns;
    p.watermark_ns = now_ns;
  }
  return s;
}

int arg_int(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == name) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

int run(int argc, char** argv) {
  const int nodes = arg_int(argc, argv, "--nodes", 64);
  const int ranks = arg_int(argc, argv, "--ranks", 64);
  const int seconds = arg_int(argc, argv, "--seconds", 60);
  const int total = nodes * ranks;
  test::TempDir dir;

  test::DaemonOptions head_options;
  head_options.extra_args = {"--tree-listen",      "tcp://127.0.0.2:*", "--state-dir",
                             dir.path() + "/head", "--log-level",       "warn"};
  test::DaemonProcess head(head_options);
  if (!head.start()) {
    std::fprintf(stderr, "head did not start: %s\n", head.log().c_str());
    return 1;
  }
  const std::string server_key = key_of(dir.path() + "/head/curve.pub");
  const std::string endpoint =
      get_json(head, "/api/v1/status")["tree"]["curve_listen"][0].get<std::string>();
  std::this_thread::sleep_for(2s);
  const std::uint64_t rss_idle = rss_bytes(head.pid());

  // The real node and its ranks' agents.
  test::DaemonOptions node_options;
  node_options.extra_args = {"--upstream",  endpoint, "--upstream-key", server_key,
                             "--node",      "real",   "--state-dir",    dir.path() + "/node",
                             "--log-level", "warn"};
  test::DaemonProcess node(node_options);
  if (!node.start()) {
    std::fprintf(stderr, "node did not start: %s\n", node.log().c_str());
    return 1;
  }
  void* context = zmq_ctx_new();
  void* agents = zmq_socket(context, ZMQ_PUSH);
  zmq_connect(agents, node.tcp_endpoint().c_str());
  std::vector<FrameTemplate> templates;
  const std::int64_t start = wall_now_ns();
  for (int i = 0; i < ranks; ++i) {
    templates.emplace_back(SimulatedRank{"real", i, 2000 + i, "real-node"}, 1000, start,
                           1'000'000'000);
  }
  // Ranks 1.. stream 1 000 events per second each; rank 0 sends when the
  // latency is measured, from this thread (one socket per thread).
  void* probe = zmq_socket(context, ZMQ_PUSH);
  zmq_connect(probe, node.tcp_endpoint().c_str());
  zmq_send(probe, templates[0].bytes().data(), templates[0].bytes().size(), 0);
  std::atomic<bool> running{true};
  std::thread agent_thread([&] {
    while (running) {
      for (std::size_t i = 1; i < templates.size(); ++i) {
        templates[i].advance(1'000'000'000);
        zmq_send(agents, templates[i].bytes().data(), templates[i].bytes().size(), ZMQ_DONTWAIT);
      }
      std::this_thread::sleep_for(1s);
    }
  });

  // The simulated nodes: one CURVE connection each, one report per tick.
  std::vector<void*> sockets;
  for (int n = 1; n < nodes; ++n) {
    void* s = zmq_socket(context, ZMQ_PUSH);
    char pub[41] = {};
    char sec[41] = {};
    zmq_curve_keypair(pub, sec);
    zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_key.c_str(), 41);
    zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 41);
    zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 41);
    const int hwm = 4;
    zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_connect(s, endpoint.c_str());
    sockets.push_back(s);
  }
  std::uint64_t reports_unsent = 0;
  std::thread node_thread([&] {
    std::uint64_t tick = 0;
    auto next = std::chrono::steady_clock::now();
    while (running) {
      ++tick;
      const std::int64_t now = wall_now_ns();
      for (int n = 1; n < nodes; ++n) {
        const Snapshot s = node_snapshot(n, ranks, now, tick);
        for (const auto& f : collector::encode_reports(s, "sim-" + std::to_string(n), "")) {
          if (zmq_send(sockets[static_cast<std::size_t>(n - 1)], f.data(), f.size(), ZMQ_DONTWAIT) <
              0) {
            ++reports_unsent;
          }
        }
      }
      next += std::chrono::nanoseconds(kTickNs);
      std::this_thread::sleep_until(next);
    }
  });

  // Wait for every rank, then measure.
  const auto held = [&] {
    const json s = get_json(head, "/api/v1/status");
    return s.is_object() ? s["tree"]["remote_ranks"].get<int>() : 0;
  };
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (held() < total && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(200ms);
  std::printf("head holds %d of %d ranks (%d nodes x %d ranks, %d simulated nodes)\n", held(),
              total, nodes, ranks, nodes - 1);

  std::vector<double> tick_ms;
  std::vector<double> tick_cpu_ms;
  std::vector<double> latency_ticks;
  std::uint64_t last_tick = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    // Latency: the real rank 0's watermark at the head, before and after one
    // more batch of it reaches the node.
    const auto watermark = [&] {
      const json r = get_json(head, "/api/v1/jobs/real");
      return r.is_object() && !r["ranks"].empty()
                 ? r["ranks"][0]["watermark_ns"].get<std::int64_t>()
                 : 0;
    };
    const std::int64_t before = watermark();
    templates[0].advance(1'000'000'000);
    const auto t0 = std::chrono::steady_clock::now();
    zmq_send(probe, templates[0].bytes().data(), templates[0].bytes().size(), 0);
    while (watermark() <= before && std::chrono::steady_clock::now() - t0 < 5s) {
      const json s = get_json(head, "/api/v1/status");
      if (s.is_object() && s["tick"].get<std::uint64_t>() != last_tick) {
        last_tick = s["tick"];
        tick_ms.push_back(s["tick_seconds_last"].get<double>() * 1e3);
        tick_cpu_ms.push_back(s["tick_cpu_seconds_last"].get<double>() * 1e3);
      }
      std::this_thread::sleep_for(10ms);
    }
    latency_ticks.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
        (static_cast<double>(kTickNs) / 1e9));
    std::this_thread::sleep_for(std::chrono::milliseconds(137 + latency_ticks.size() % 5 * 61));
  }
  const std::uint64_t rss = rss_bytes(head.pid());
  const json status = get_json(head, "/api/v1/status");
  running = false;
  agent_thread.join();
  node_thread.join();
  for (void* s : sockets)
    zmq_close(s);
  zmq_close(agents);
  zmq_close(probe);
  zmq_ctx_term(context);

  const double per_rank_kib = static_cast<double>(rss - std::min(rss, rss_idle)) / total / 1024.0;
  std::printf("head RSS: idle %.1f MiB, with %d ranks %.1f MiB: %.1f KiB per rank\n",
              static_cast<double>(rss_idle) / 1048576.0, total,
              static_cast<double>(rss) / 1048576.0, per_rank_kib);
  std::printf(
      "head tick wall: %zu ticks sampled, p50 %.1f ms, p99 %.1f ms, max %.1f ms; the daemon's "
      "own p99 over all its ticks %.1f ms\n",
      tick_ms.size(), percentile(tick_ms, 0.5), percentile(tick_ms, 0.99), percentile(tick_ms, 1.0),
      status["tick_seconds_p99"].get<double>() * 1e3);
  std::printf(
      "head tick CPU (the tick thread's own time, immune to a busy machine): p50 %.1f ms, "
      "p99 %.1f ms; the daemon's own p99 %.1f ms\n",
      percentile(tick_cpu_ms, 0.5), percentile(tick_cpu_ms, 0.99),
      status["tick_cpu_seconds_p99"].get<double>() * 1e3);
  std::printf(
      "batch at a node -> effect at the head's API: %zu samples, median %.2f ticks, "
      "p99 %.2f ticks, max %.2f ticks\n",
      latency_ticks.size(), percentile(latency_ticks, 0.5), percentile(latency_ticks, 0.99),
      percentile(latency_ticks, 1.0));
  std::printf(
      "reports: received %llu, rejected %llu; simulated nodes' unsent %llu\n",
      static_cast<unsigned long long>(status["tree"]["reports_received"].get<std::uint64_t>()),
      static_cast<unsigned long long>(status["tree"]["reports_rejected"].get<std::uint64_t>()),
      static_cast<unsigned long long>(reports_unsent));
  json line = {{"nodes", nodes},
               {"ranks", total},
               {"head_rss_kib_per_rank", per_rank_kib},
               {"head_tick_p99_ms", percentile(tick_ms, 0.99)},
               {"head_tick_p99_ms_all_ticks", status["tick_seconds_p99"].get<double>() * 1e3},
               {"head_tick_cpu_p99_ms", percentile(tick_cpu_ms, 0.99)},
               {"head_tick_p99_ms_all_ticks", status["tick_seconds_p99"].get<double>() * 1e3},
               {"latency_ticks_median", percentile(latency_ticks, 0.5)},
               {"latency_ticks_max", percentile(latency_ticks, 1.0)}};
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  return stallwatch::bench::run(argc, argv);
}
