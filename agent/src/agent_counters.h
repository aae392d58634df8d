// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>

namespace stallwatch::agent {

// Process-wide send statistics and wire sequence state. They outlive any one
// Sender (sw_stop + sw_start keeps counting and keeps seq increasing) and are
// zeroed in a forked child. Written by the sender thread (refused: by any
// thread); read by anyone.
struct AgentCounters {
  std::atomic<std::uint64_t> refused{0};       // calls that found no running agent or buffer
  std::atomic<std::uint64_t> lost_in_send{0};  // events in batches ZeroMQ refused
  std::atomic<std::uint64_t> events_sent{0};
  std::atomic<std::uint64_t> batches_sent{0};
  std::atomic<std::uint64_t> heartbeats_sent{0};
  std::atomic<std::uint64_t> send_failures{0};
  std::atomic<std::uint64_t> next_seq{0};
  std::atomic<std::uint64_t> drops_reported{0};  // drops announced in batches that were sent
  std::atomic<std::uint64_t> device_dropped{0};  // device records lost before becoming events

  void reset() noexcept {
    for (auto* counter : {&refused, &lost_in_send, &events_sent, &batches_sent, &heartbeats_sent,
                          &send_failures, &next_seq, &drops_reported, &device_dropped}) {
      counter->store(0, std::memory_order_relaxed);
    }
  }
};

}  // namespace stallwatch::agent
