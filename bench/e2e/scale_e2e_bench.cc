// SPDX-License-Identifier: MIT
// Scale: many simulated ranks streaming like real agents into one stallwatchd
// with its default configuration (windows 10 s / 60 s / 300 s, tick 500 ms).
// Sender processes each play a share of the ranks; every rank sends one
// batch per period (default: 1000 events per 100 ms = 10 k events/s) with
// times on the real clock and non-blocking sends, as the agent does.
// While it runs: the daemon's RSS, every tick's duration (tick_seconds_last
// of /api/v1/status, sampled twice per tick), and the latency of the API
// (job detail with every rank row, job list, /metrics). At the end: every
// event sent was received. Prints figures, asserts nothing, ends with one
// JSON line.
//
// Fan-in from many hosts: --connections rank gives every rank its own ZeroMQ
// connection (as one agent process per rank would have), --curve 1 sends over
// the daemon's CURVE endpoint (tcp on loopback, a key pair per connection).
//
//   bench_e2e_scale [--ranks 256] [--rate 10000] [--minutes 10] [--senders 4]
//                   [--period-ms 100] [--connections sender|rank] [--curve 0|1]

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "frame_template.h"
#include "proc_stats.h"
#include "sender_fleet.h"

namespace stallwatch::bench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Flags {
  int ranks = 256;
  std::size_t rate = 10'000;  // events per second per rank
  double minutes = 10;
  int senders = 4;
  std::int64_t period_ms = 100;
  bool socket_per_rank = false;
  bool curve = false;
};

// The collector's CURVE key pair (Z85), made before any sender forks.
struct ServerKeys {
  char public_key[41] = {};
  char secret_key[41] = {};
};

const ServerKeys& server_keys() {
  static const ServerKeys keys = [] {
    ServerKeys k;
    zmq_curve_keypair(k.public_key, k.secret_key);
    return k;
  }();
  return keys;
}

// A PUSH socket connected to `endpoint`, a CURVE client when `curve`.
void* connect_push(void* context, const std::string& endpoint, bool curve) {
  void* socket = zmq_socket(context, ZMQ_PUSH);
  const int hwm = 1000;
  const int linger = 5000;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  if (curve) {
    char public_key[41] = {};
    char secret_key[41] = {};
    zmq_curve_keypair(public_key, secret_key);
    zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, server_keys().public_key, 40);
    zmq_setsockopt(socket, ZMQ_CURVE_PUBLICKEY, public_key, 40);
    zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, secret_key, 40);
  }
  zmq_connect(socket, endpoint.c_str());
  return socket;
}

bool parse_flags(int argc, char** argv, Flags& f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--ranks") {
      f.ranks = std::stoi(value);
    } else if (key == "--rate") {
      f.rate = std::stoul(value);
    } else if (key == "--minutes") {
      f.minutes = std::stod(value);
    } else if (key == "--senders") {
      f.senders = std::stoi(value);
    } else if (key == "--period-ms") {
      f.period_ms = std::stoll(value);
    } else if (key == "--connections") {
      if (value != "sender" && value != "rank") return false;
      f.socket_per_rank = value == "rank";
    } else if (key == "--curve") {
      f.curve = value == "1";
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && f.ranks > 0 && f.senders > 0 && f.minutes > 0 && f.period_ms > 0 &&
         f.rate * static_cast<std::size_t>(f.period_ms) >= 1000 * 200;
}

// One sender process: ranks [first, last), one batch per rank per period.
SenderReport play_ranks(const Flags& f, int index, const std::string& endpoint,
                        const std::function<void()>& gate) {
  const int first = f.ranks * index / f.senders;
  const int last = f.ranks * (index + 1) / f.senders;
  const std::int64_t period = f.period_ms * 1'000'000;
  const std::size_t events = f.rate * static_cast<std::size_t>(f.period_ms) / 1000;
  std::vector<FrameTemplate> templates;
  for (int r = first; r < last; ++r) {
    templates.emplace_back(
        SimulatedRank{"scale", r, 200'000 + r * 10, "sim-" + std::to_string(index)}, events,
        wall_now_ns(), period);
  }
  void* context = zmq_ctx_new();
  const int max_sockets = 4096;
  zmq_ctx_set(context, ZMQ_MAX_SOCKETS, max_sockets);
  std::vector<void*> sockets;
  for (std::size_t i = 0; i < (f.socket_per_rank ? templates.size() : 1); ++i)
    sockets.push_back(connect_push(context, endpoint, f.curve));
  gate();

  SenderReport report;
  const std::int64_t start_mono = mono_now_ns() + period * index / f.senders;
  const std::int64_t start_wall = wall_now_ns() + period * index / f.senders;
  const std::int64_t end_mono = mono_now_ns() + static_cast<std::int64_t>(f.minutes * 60e9);
  for (std::int64_t k = 0;; ++k) {
    const std::int64_t due = start_mono + k * period;
    if (due >= end_mono) break;
    const std::int64_t wait = due - mono_now_ns();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
    for (std::size_t i = 0; i < templates.size(); ++i) {
      FrameTemplate& t = templates[i];
      void* socket = sockets[f.socket_per_rank ? i : 0];
      t.advance(start_wall + k * period - t.sent_at_ns());
      const auto bytes = t.bytes();
      if (zmq_send(socket, bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
        ++report.frames_failed;
        continue;
      }
      ++report.frames_sent;
      report.events_sent += t.event_count();
    }
  }
  for (void* socket : sockets)
    zmq_close(socket);
  zmq_ctx_term(context);
  report.done_mono_ns = mono_now_ns();
  return report;
}

double timed_get_ms(const test::DaemonProcess& daemon, const std::string& target, bool& ok) {
  const auto t0 = std::chrono::steady_clock::now();
  const test::HttpResponse r = daemon.get(target);
  ok = ok && r.status == 200;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double mb(std::uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// The 1-minute load average: how much else the machine was running.
double load_average() {
  double load = 0;
  return ::getloadavg(&load, 1) == 1 ? load : 0;
}

}  // namespace
}  // namespace stallwatch::bench

int main(int argc, char** argv) {
  using namespace stallwatch::bench;
  namespace test = stallwatch::test;
  Flags f;
  if (!parse_flags(argc, argv, f)) {
    std::fprintf(stderr,
                 "usage: bench_e2e_scale [--ranks N] [--rate EVENTS_PER_S] [--minutes M] "
                 "[--senders N] [--period-ms MS] [--connections sender|rank] [--curve 0|1]  (at "
                 "least 200 events per batch)\n");
    return 2;
  }
  std::printf(
      "stallwatchd at scale: %d ranks x %zu events/s for %.1f min, %d sender processes, %s, "
      "%s, %ld cores\n",
      f.ranks, f.rate, f.minutes, f.senders,
      f.socket_per_rank ? "one connection per rank" : "one connection per sender",
      f.curve ? "CURVE" : "plaintext", ::sysconf(_SC_NPROCESSORS_ONLN));
  server_keys();
  // One connection per rank needs a descriptor per rank in the daemon (inherited).
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  test::TempDir state;
  test::DaemonOptions options;
  std::string endpoint;
  if (f.curve) {
    const std::string key_path = state.path() + "/curve.key";
    const std::string text = std::string(server_keys().secret_key) + "\n";
    const int fd = ::open(key_path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      std::fprintf(stderr, "cannot write %s\n", key_path.c_str());
      return 1;
    }
    ::close(fd);
    endpoint = "tcp://127.0.0.1:" + std::to_string(test::free_tcp_port());
    options.extra_args = {"--curve", endpoint, "--state-dir", state.path()};
  }
  test::DaemonProcess daemon(options);
  if (!daemon.start()) {
    std::fprintf(stderr, "stallwatchd did not start:\n%s\n", daemon.log().c_str());
    return 1;
  }
  const int pid = daemon.pid();
  if (!f.curve) endpoint = f.socket_per_rank ? daemon.tcp_endpoint() : daemon.ipc_endpoint();
  SenderFleet fleet;
  if (!fleet.start(f.senders,
                   [&](int index, const std::function<void()>& gate) {
                     return play_ranks(f, index, endpoint, gate);
                   }) ||
      !fleet.wait_ready(120s)) {
    std::fprintf(stderr, "senders did not start\n");
    return 1;
  }
  const double load_start = load_average();
  const std::uint64_t rss_idle = rss_bytes(pid);
  const auto cpu_before = thread_cpu(pid);
  const std::int64_t go = fleet.go();
  const std::int64_t end = go + static_cast<std::int64_t>(f.minutes * 60e9);

  std::vector<double> tick_ms;
  std::vector<double> detail_ms;
  std::vector<double> jobs_ms;
  std::vector<double> metrics_ms;
  std::vector<std::pair<double, std::uint64_t>> rss;  // (seconds since go, bytes)
  std::int64_t last_tick = -1;
  double lag_max = 0;
  double tick_max_daemon = 0;
  bool api_ok = true;
  std::int64_t next_api = go + 1'000'000'000;
  std::int64_t next_rss = go + 10'000'000'000;
  while (mono_now_ns() < end) {
    const test::HttpResponse r = daemon.get("/api/v1/status");
    const json status = r.status == 200 ? json::parse(r.body, nullptr, false) : json();
    if (status.is_object()) {
      const auto tick = status["tick"].get<std::int64_t>();
      if (tick != last_tick) {
        tick_ms.push_back(status["tick_seconds_last"].get<double>() * 1e3);
        last_tick = tick;
      }
      tick_max_daemon = status["tick_seconds_max"].get<double>() * 1e3;
      lag_max = std::max(lag_max, status["ingest"]["ingest_lag_seconds"].get<double>());
    }
    const std::int64_t now = mono_now_ns();
    if (now >= next_api) {
      detail_ms.push_back(timed_get_ms(daemon, "/api/v1/jobs/scale", api_ok));
      jobs_ms.push_back(timed_get_ms(daemon, "/api/v1/jobs", api_ok));
      metrics_ms.push_back(timed_get_ms(daemon, "/metrics", api_ok));
      next_api += 1'000'000'000;
    }
    if (now >= next_rss) {
      rss.emplace_back(static_cast<double>(now - go) / 1e9, rss_bytes(pid));
      std::printf("t=%5.0f s  RSS %7.1f MB  ticks %zu  tick p99 so far %.2f ms\n", rss.back().first,
                  mb(rss.back().second), tick_ms.size(), percentile(tick_ms, 0.99));
      std::fflush(stdout);
      next_rss += 10'000'000'000;
    }
    std::this_thread::sleep_for(250ms);
  }
  const auto cpu_after = thread_cpu(pid);
  const double wall = static_cast<double>(mono_now_ns() - go) / 1e9;
  const std::vector<SenderReport> reports = fleet.collect(120s);
  std::uint64_t sent = 0;
  std::uint64_t failed = 0;
  for (const SenderReport& s : reports) {
    sent += s.events_sent;
    failed += s.frames_failed;
  }
  json status;
  test::wait_until(
      [&] {
        const test::HttpResponse r = daemon.get("/api/v1/status");
        status = r.status == 200 ? json::parse(r.body, nullptr, false) : json();
        return status.is_object() &&
               status["ingest"]["events_received"].get<std::uint64_t>() >= sent;
      },
      30s, 100ms);
  const std::uint64_t received =
      status.is_object() ? status["ingest"]["events_received"].get<std::uint64_t>() : 0;
  std::uint64_t rejected = 0;
  if (status.is_object()) {
    for (const auto& [reason, n] : status["ingest"]["rejected_connections"].items())
      rejected += n.get<std::uint64_t>();
  }
  const std::uint64_t rss_end = rss_bytes(pid);
  const std::uint64_t rss_start = rss.empty() ? rss_idle : rss.front().second;
  std::uint64_t rss_max = rss_end;
  for (const auto& [t, bytes] : rss)
    rss_max = std::max(rss_max, bytes);
  const auto delta = cpu_delta(cpu_before, cpu_after);
  double daemon_cpu = 0;
  for (const ThreadCpu& t : delta)
    daemon_cpu += t.cpu_seconds;

  std::printf("events: sent %llu, received %llu, sends refused %llu (%s)\n",
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received),
              static_cast<unsigned long long>(failed),
              received == sent && failed == 0 ? "zero loss" : "LOSS");
  std::printf("RSS: idle %.1f MB, at 10 s %.1f MB, end %.1f MB, max %.1f MB\n", mb(rss_idle),
              mb(rss_start), mb(rss_end), mb(rss_max));
  std::printf(
      "ticks: %zu sampled, p50 %.2f ms, p99 %.2f ms, max %.2f ms (daemon's own max %.2f ms)\n",
      tick_ms.size(), percentile(tick_ms, 0.5), percentile(tick_ms, 0.99), percentile(tick_ms, 1.0),
      tick_max_daemon);
  std::printf(
      "API while loaded (p50 / p99 / max ms): job detail %.1f / %.1f / %.1f, jobs %.1f / %.1f / "
      "%.1f, "
      "/metrics %.1f / %.1f / %.1f%s\n",
      percentile(detail_ms, 0.5), percentile(detail_ms, 0.99), percentile(detail_ms, 1.0),
      percentile(jobs_ms, 0.5), percentile(jobs_ms, 0.99), percentile(jobs_ms, 1.0),
      percentile(metrics_ms, 0.5), percentile(metrics_ms, 0.99), percentile(metrics_ms, 1.0),
      api_ok ? "" : " (some requests failed)");
  std::printf("daemon CPU: %.2f cores over %.0f s; busiest threads:", daemon_cpu / wall, wall);
  for (std::size_t i = 0; i < std::min<std::size_t>(4, delta.size()); ++i) {
    std::printf(" %s/%d %.0f%%", delta[i].name.c_str(), delta[i].tid,
                100 * delta[i].cpu_seconds / wall);
  }
  std::printf("; max ingest lag %.3f s\n", lag_max);
  std::printf(
      "{\"bench\":\"e2e_scale\",\"ranks\":%d,\"events_per_s_per_rank\":%zu,\"minutes\":%.2f,"
      "\"events_per_s\":%.0f,\"zero_loss\":%s,\"rss_start_mb\":%.1f,\"rss_end_mb\":%.1f,"
      "\"rss_max_mb\":%.1f,\"tick_p50_ms\":%.3f,\"tick_p99_ms\":%.3f,\"tick_max_ms\":%.3f,"
      "\"api_job_detail_p99_ms\":%.2f,\"api_jobs_p99_ms\":%.2f,\"metrics_p99_ms\":%.2f,"
      "\"daemon_cores\":%.3f,\"frames_refused\":%llu,\"ingest_lag_max_s\":%.3f,"
      "\"loadavg_start\":%.2f,\"loadavg_end\":%.2f,\"connections\":%d,\"curve\":%s,"
      "\"rejected_connections\":%llu}\n",
      f.ranks, f.rate, f.minutes, static_cast<double>(received) / wall,
      received == sent && failed == 0 ? "true" : "false", mb(rss_start), mb(rss_end), mb(rss_max),
      percentile(tick_ms, 0.5), percentile(tick_ms, 0.99), tick_max_daemon,
      percentile(detail_ms, 0.99), percentile(jobs_ms, 0.99), percentile(metrics_ms, 0.99),
      daemon_cpu / wall, static_cast<unsigned long long>(failed), lag_max, load_start,
      load_average(), f.socket_per_rank ? f.ranks : f.senders, f.curve ? "true" : "false",
      static_cast<unsigned long long>(rejected));
  return 0;
}
