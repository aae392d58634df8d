// SPDX-License-Identifier: MIT
#include "demo_job.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "engine/decoded_batch.h"
#include "http_get.h"
#include "ingest/batch_encoder.h"
#include "test_env.h"

namespace stallwatch::tui::test {
namespace {

using collector::DecodedBatch;
using collector::Event;
using collector::EventKind;
using collector::NameTable;
using stallwatch::ProcessRole;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;
constexpr int kSteps = 20;

struct Process {
  std::string job;
  std::int32_t rank;
  std::int32_t pid;
  std::int32_t ppid;
  ProcessRole role;
  std::vector<Event> events;
};

class Builder {
 public:
  explicit Builder(NameTable& names) : names_(names) {}

  Event complete(std::int32_t tid, std::int64_t start, std::int64_t dur, const char* cat,
                 const char* name) {
    return {start,
            dur,
            0,
            0,
            static_cast<std::uint32_t>(tid),
            names_.intern(cat),
            names_.intern(name),
            EventKind::kComplete,
            0};
  }
  Event mark(std::int32_t tid, std::int64_t ts, const char* name, std::int64_t value) {
    return {ts,
            0,
            value,
            0,
            static_cast<std::uint32_t>(tid),
            names_.intern("pipeline"),
            names_.intern(name),
            EventKind::kMark,
            0};
  }
  Event counter(std::int32_t tid, std::int64_t ts, const char* name, std::int64_t value) {
    return {ts,
            0,
            value,
            0,
            static_cast<std::uint32_t>(tid),
            names_.intern("pipeline"),
            names_.intern(name),
            EventKind::kCounter,
            0};
  }

 private:
  NameTable& names_;
};

// A main process that, each second, fetches for `fetch_ms`, reads for
// `read_ms` (application I/O outside the loop's fetch), then computes for
// `compute_ms`.
Process main_process(Builder& b, const std::string& job, std::int32_t rank, std::int32_t pid,
                     std::int64_t fetch_ms, std::int64_t compute_ms, std::int64_t read_ms = 0) {
  Process p{job, rank, pid, 1, ProcessRole::kMain, {}};
  for (int i = 0; i < kSteps; ++i) {
    const std::int64_t t = kDemoT0 + i * kS;
    p.events.push_back(b.mark(pid, t, "step", i));
    std::int64_t at = t;
    if (fetch_ms > 0) {
      p.events.push_back(b.complete(pid, at, fetch_ms * kMs, "dataloader", "fetch.iter"));
      at += fetch_ms * kMs;
    }
    if (read_ms > 0) {
      p.events.push_back(b.complete(pid, at, read_ms * kMs, "data", "read"));
      at += read_ms * kMs;
    }
    p.events.push_back(b.complete(pid, at, compute_ms * kMs, "compute", "forward"));
  }
  return p;
}

std::vector<Process> demo_processes(NameTable& names) {
  Builder b(names);
  std::vector<Process> out;
  // Rank 0 starves more in its second half: fetch 600 ms, then 800 ms.
  Process r0{"tui-demo", 0, 4100, 1, ProcessRole::kMain, {}};
  r0.events = {b.mark(4100, kDemoT0, "epoch.start", 1), b.counter(4100, kDemoT0, "batch_size", 32)};
  for (int i = 0; i < kSteps; ++i) {
    const std::int64_t t = kDemoT0 + i * kS;
    const std::int64_t fetch = (i < kSteps / 2 ? 600 : 800) * kMs;
    r0.events.push_back(b.mark(4100, t, "step", i));
    r0.events.push_back(b.complete(4100, t, fetch, "dataloader", "fetch.iter"));
    r0.events.push_back(b.complete(4100, t + fetch, kS - fetch, "compute", "forward"));
  }
  out.push_back(std::move(r0));
  out.push_back(main_process(b, "tui-demo", 1, 4200, 50, 950));
  Process worker{"tui-demo", 1, 4201, 4200, ProcessRole::kWorker, {}};
  for (int i = 0; i < kSteps; ++i) {
    worker.events.push_back(
        b.complete(4201, kDemoT0 + i * kS + 100 * kMs, 700 * kMs, "dataloader", "read"));
  }
  out.push_back(std::move(worker));
  out.push_back(main_process(b, "tui-demo", 2, 4300, 20, 500));
  out.push_back(main_process(b, "tui-other", 0, 5100, 0, 600, 400));
  return out;
}

}  // namespace

SendResult send_demo_jobs(const std::string& endpoint) {
  try {
    NameTable names;
    collector::BatchEncoder encoder;
    zmq::context_t context;
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 5000);
    push.connect(endpoint);
    const std::vector<Process> processes = demo_processes(names);
    const auto send = [&](const Process& p, std::uint64_t seq, std::int64_t sent_at,
                          std::vector<Event> events, bool final) -> std::string {
      DecodedBatch batch;
      batch.source = {p.job,   p.rank, "node-a",
                      p.pid,   p.ppid, "0.1.0",
                      kDemoT0, p.role, stallwatch::DeviceSource::kNone};
      batch.seq = seq;
      batch.sent_at_ns = sent_at;
      batch.final = final;
      batch.events = std::move(events);
      const auto frame = encoder.encode(batch, names);
      if (!frame.ok()) return "encode: " + frame.error;
      push.send(zmq::buffer(frame.bytes.data(), frame.bytes.size()), zmq::send_flags::none);
      return {};
    };
    // Like live agents: every process sends the events of each second at
    // the end of that second, so no process runs ahead of the others.
    for (int i = 0; i < kSteps; ++i) {
      const std::int64_t from = kDemoT0 + i * kS;
      for (const Process& p : processes) {
        std::vector<Event> events;
        for (const Event& e : p.events) {
          if (e.ts_ns >= from && e.ts_ns < from + kS) events.push_back(e);
        }
        if (auto error =
                send(p, static_cast<std::uint64_t>(i) + 1, from + kS, std::move(events), false);
            !error.empty()) {
          return {false, error};
        }
      }
    }
    for (const Process& p : processes) {
      if (auto error = send(p, kSteps + 1, kDemoT0 + kSteps * kS, {}, true); !error.empty())
        return {false, error};
    }
    return {true, {}};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
}

SendResult send_garbage_frame(const std::string& endpoint) {
  try {
    zmq::context_t context;
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 5000);
    push.connect(endpoint);
    const std::string garbage(64, 'x');
    push.send(zmq::buffer(garbage), zmq::send_flags::none);
    return {true, {}};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
}

bool wait_for_demo_state(int http_port) {
  std::uint64_t settled_tick = 0;
  return stallwatch::test::wait_until(
      [&] {
        const auto r = stallwatch::test::http_get(http_port, "/api/v1/jobs");
        if (r.status != 200) return false;
        const auto doc = nlohmann::json::parse(r.body, nullptr, false);
        if (!doc.is_object() || !doc.contains("jobs")) return false;
        std::uint64_t events = 0;
        std::size_t finished_jobs = 0;
        for (const auto& job : doc["jobs"]) {
          events += job["counters"].value("events_received", std::uint64_t{0});
          finished_jobs += job.value("state", "") == "finished" ? 1 : 0;
        }
        if (events != kDemoEvents || finished_jobs != 2) return false;
        const std::uint64_t tick = doc.value("tick", std::uint64_t{0});
        if (settled_tick == 0) settled_tick = tick;
        return tick >= settled_tick + 2;
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100));
}

}  // namespace stallwatch::tui::test
