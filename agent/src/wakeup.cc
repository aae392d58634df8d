// SPDX-License-Identifier: MIT
#include "wakeup.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace stallwatch::agent {
namespace {

std::uint32_t* futex_address(std::atomic<std::uint32_t>& word) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return reinterpret_cast<std::uint32_t*>(&word);
}

}  // namespace

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                std::int64_t timeout_ns) noexcept {
  if (timeout_ns <= 0) return;
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
  timeout.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
  syscall(SYS_futex, futex_address(word), FUTEX_WAIT_PRIVATE, expected, &timeout, nullptr, 0);
}

void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept {
  syscall(SYS_futex, futex_address(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

// Keeps errno: producers call it from recording calls, which never change it.
void Wakeup::notify() noexcept {
  if (pending_.exchange(1, std::memory_order_acq_rel) == 0) {
    const int error = errno;
    syscall(SYS_futex, futex_address(pending_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    errno = error;
  }
}

void Wakeup::wait_for(std::int64_t timeout_ns) noexcept {
  futex_wait(pending_, 0, timeout_ns);
  pending_.store(0, std::memory_order_release);
}

}  // namespace stallwatch::agent
