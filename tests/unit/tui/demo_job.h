// SPDX-License-Identifier: MIT
#pragma once

// A fixed, finished collector state for the TUI's integration tests, sent as
// real wire frames (BatchEncoder) over ZeroMQ to a stallwatchd. Every process
// sends its events and a final batch, with timestamps from kDemoT0, so the
// daemon's numbers are the same on every run:
//
//   tui-demo  rank 0  main 4100: each second fetch 600 ms, compute 400 ms;
//                     from 10 s on fetch 800 ms, compute 200 ms         -> data-starved
//             rank 1  main 4200: fetch 50 ms, compute 950 ms;
//                     worker 4201: reads 700 ms inside the compute       -> well-overlapped
//             rank 2  main 4300: fetch 20 ms, compute 500 ms, idle 480 ms -> host-bound
//   tui-other rank 0  main 5100: read 400 ms, compute 600 ms             -> io-bound
//
// 20 steps of one second each; no device signal (compute-proxy).

#include <cstdint>
#include <string>

namespace stallwatch::tui::test {

inline constexpr std::int64_t kDemoT0 = 1'700'000'000'000'000'000;
inline constexpr std::uint64_t kDemoEvents = 262;
inline constexpr std::uint64_t kDemoFrames = 105;  // 20 per process, then a final one

struct SendResult {
  bool ok = false;
  std::string error;
};

// Sends both jobs to `endpoint` (e.g. tcp://127.0.0.1:5557).
SendResult send_demo_jobs(const std::string& endpoint);

// Waits until the daemon on `http_port` shows every demo process finished
// and has published a later tick, so its answers no longer change.
bool wait_for_demo_state(int http_port);

// Sends one frame that is not a valid Batch.
SendResult send_garbage_frame(const std::string& endpoint);

}  // namespace stallwatch::tui::test
