// SPDX-License-Identifier: MIT
// soak_feeder: one process playing ranks [0, N) of one job at a fixed rate
// into a daemon's ingest endpoint, for bench/e2e/churn_soak.py. Each period
// it hands every rank one batch (FrameTemplate: contiguous times, seq 1, 2,
// ...) to ZeroMQ without blocking, as the agent does; a batch ZeroMQ refuses
// is not sent but still takes its sequence number, so the daemon counts it
// in lost_batches. It writes what it sent, per rank, to --report (JSON,
// replaced once a second and at the end), so that a killed feeder leaves
// what it had sent up to its last second:
//
//   {"job": J, "events_per_batch": B, "done": bool, "seconds": s,
//    "ranks": [{"rank": r, "batches": n, "events_sent": e, "batches_failed": f,
//               "events_failed": ef}, ...]}
//
// "batches" counts every sequence number used (sent or failed). SIGTERM or
// SIGINT ends it cleanly: ZeroMQ flushes (linger 10 s) before the final report.
//
//   soak_feeder --endpoint E --job J --ranks N --rate EVENTS_PER_S_PER_RANK
//               --seconds S [--period-ms 100] --report FILE

#include <signal.h>
#include <unistd.h>
#include <zmq.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "frame_template.h"

namespace {

using stallwatch::bench::FrameTemplate;
using stallwatch::bench::mono_now_ns;
using stallwatch::bench::SimulatedRank;
using stallwatch::bench::wall_now_ns;

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

struct Flags {
  std::string endpoint;
  std::string job;
  int ranks = 0;
  long rate = 10'000;
  double seconds = 0;
  long period_ms = 100;
  std::string report;
};

struct RankCounts {
  std::uint64_t batches = 0;
  std::uint64_t events_sent = 0;
  std::uint64_t batches_failed = 0;
  std::uint64_t events_failed = 0;
};

bool parse_flags(int argc, char** argv, Flags& f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--endpoint") {
      f.endpoint = value;
    } else if (key == "--job") {
      f.job = value;
    } else if (key == "--ranks") {
      f.ranks = std::stoi(value);
    } else if (key == "--rate") {
      f.rate = std::stol(value);
    } else if (key == "--seconds") {
      f.seconds = std::stod(value);
    } else if (key == "--period-ms") {
      f.period_ms = std::stol(value);
    } else if (key == "--report") {
      f.report = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !f.endpoint.empty() && !f.job.empty() && !f.report.empty() &&
         f.ranks > 0 && f.seconds > 0 && f.period_ms > 0 && f.rate * f.period_ms >= 1000 * 200;
}

// Replaces the report atomically (write, then rename).
void write_report(const Flags& f, std::size_t events_per_batch, bool done, double seconds,
                  const std::vector<RankCounts>& counts) {
  const std::string partial = f.report + ".part";
  FILE* out = std::fopen(partial.c_str(), "w");
  if (out == nullptr) return;
  std::fprintf(out, "{\"job\": \"%s\", \"events_per_batch\": %zu, \"done\": %s, \"seconds\": %.3f",
               f.job.c_str(), events_per_batch, done ? "true" : "false", seconds);
  std::fprintf(out, ", \"ranks\": [");
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const RankCounts& c = counts[r];
    std::fprintf(out,
                 "%s{\"rank\": %zu, \"batches\": %llu, \"events_sent\": %llu, "
                 "\"batches_failed\": %llu, \"events_failed\": %llu}",
                 r == 0 ? "" : ", ", r, static_cast<unsigned long long>(c.batches),
                 static_cast<unsigned long long>(c.events_sent),
                 static_cast<unsigned long long>(c.batches_failed),
                 static_cast<unsigned long long>(c.events_failed));
  }
  std::fprintf(out, "]}\n");
  std::fclose(out);
  std::rename(partial.c_str(), f.report.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!parse_flags(argc, argv, f)) {
    std::fprintf(stderr,
                 "usage: soak_feeder --endpoint E --job J --ranks N --rate EVENTS_PER_S "
                 "--seconds S [--period-ms 100] --report FILE\n");
    return 2;
  }
  ::signal(SIGTERM, on_signal);
  ::signal(SIGINT, on_signal);
  const std::int64_t period = f.period_ms * 1'000'000;
  const auto events = static_cast<std::size_t>(f.rate * f.period_ms / 1000);
  const int pid = static_cast<int>(::getpid());
  std::vector<FrameTemplate> templates;
  for (int r = 0; r < f.ranks; ++r) {
    templates.emplace_back(SimulatedRank{f.job, r, pid * 64 + r, "soak-" + std::to_string(pid)},
                           events, wall_now_ns(), period);
  }
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, ZMQ_PUSH);
  const int hwm = 1000;
  const int linger = 10'000;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
  if (zmq_connect(socket, f.endpoint.c_str()) != 0) {
    std::fprintf(stderr, "soak_feeder: cannot connect to %s\n", f.endpoint.c_str());
    return 1;
  }

  std::vector<RankCounts> counts(templates.size());
  const std::int64_t start = mono_now_ns();
  const auto end = start + static_cast<std::int64_t>(f.seconds * 1e9);
  std::int64_t next = start;
  std::int64_t next_report = start + 1'000'000'000;
  while (!g_stop && next < end) {
    for (std::size_t r = 0; r < templates.size(); ++r) {
      FrameTemplate& t = templates[r];
      RankCounts& c = counts[r];
      const auto bytes = t.bytes();
      ++c.batches;
      if (zmq_send(socket, bytes.data(), bytes.size(), ZMQ_DONTWAIT) ==
          static_cast<int>(bytes.size())) {
        c.events_sent += t.event_count();
      } else {
        ++c.batches_failed;
        c.events_failed += t.event_count();
      }
      t.advance(period);
    }
    next += period;
    const std::int64_t now = mono_now_ns();
    if (now >= next_report) {
      write_report(f, events, false, static_cast<double>(now - start) / 1e9, counts);
      next_report += 1'000'000'000;
    }
    if (next > now) std::this_thread::sleep_for(std::chrono::nanoseconds(next - now));
  }
  const double seconds = static_cast<double>(mono_now_ns() - start) / 1e9;
  zmq_close(socket);
  zmq_ctx_term(context);
  write_report(f, events, true, seconds, counts);
  return 0;
}
