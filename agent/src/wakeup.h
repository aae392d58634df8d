// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>

namespace stallwatch::agent {

// Wakes the sender thread early. Producers call notify() rarely (a ring
// crossed its fill threshold, a flush or stop was requested); the sender
// sleeps in wait_for(). A notify() that races with the start of a wait is
// never lost: the pending flag makes the next wait return at once.
// Linux futex based; never allocates; notify() is safe from any thread.
class Wakeup {
 public:
  void notify() noexcept;
  // Sleeps until notified or `timeout_ns` passed; clears the pending flag.
  void wait_for(std::int64_t timeout_ns) noexcept;

 private:
  std::atomic<std::uint32_t> pending_{0};
};

// sw_flush()'s handshake with the sender: callers bump `requested`; after a
// full drain-and-send pass that began after a request, the sender stores the
// request number it saw in `completed` and wakes the waiters. Process-wide.
struct FlushSignal {
  std::atomic<std::uint32_t> requested{0};
  std::atomic<std::uint32_t> completed{0};
};

// Blocks while `*word == expected`, at most `timeout_ns` (futex). Spurious
// returns are possible; callers re-check their condition.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                std::int64_t timeout_ns) noexcept;
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace stallwatch::agent
