// SPDX-License-Identifier: MIT
#pragma once

// A fleet of forked sender processes for the end-to-end benchmarks. Each
// child prepares (builds frames, connects), says it is ready, blocks until
// the parent says go, does its work and reports one fixed-size result over a
// pipe, then _exits (never running the parent's destructors). The parent
// must have no other threads when it calls start().

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace stallwatch::bench {

struct SenderReport {
  std::uint64_t frames_sent = 0;
  std::uint64_t events_sent = 0;
  std::uint64_t frames_failed = 0;  // non-blocking sends ZeroMQ refused
  std::int64_t done_mono_ns = 0;    // CLOCK_MONOTONIC when the last frame was handed over
  double cpu_seconds = 0;           // the child's own CPU time while working
};

class SenderFleet {
 public:
  // `gate` is what a child calls once prepared: it reports ready and returns at go.
  using Work = std::function<SenderReport(int index, const std::function<void()>& gate)>;

  SenderFleet() = default;
  ~SenderFleet();
  SenderFleet(const SenderFleet&) = delete;
  SenderFleet& operator=(const SenderFleet&) = delete;

  bool start(int count, const Work& work);
  // True once every child called its gate.
  bool wait_ready(std::chrono::milliseconds timeout);
  // Releases every child; returns CLOCK_MONOTONIC ns at that moment.
  std::int64_t go();
  // Every child's report (in index order); empty entries for children that failed.
  std::vector<SenderReport> collect(std::chrono::milliseconds timeout);

 private:
  std::vector<int> pids_;
  std::vector<int> result_fds_;
  int ready_fd_ = -1;
  int go_fd_ = -1;
};

}  // namespace stallwatch::bench
