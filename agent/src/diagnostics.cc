// SPDX-License-Identifier: MIT
#include "diagnostics.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stallwatch::agent {
namespace {

constexpr std::int64_t kIntervalNs = 1'000'000'000;

std::atomic<std::int64_t> last_report_ns{INT64_MIN};
std::atomic<std::uint64_t> suppressed{0};

bool logging_enabled() noexcept {
  const char* setting = std::getenv("STALLWATCH_LOG");
  return setting == nullptr || std::strcmp(setting, "0") != 0;
}

std::int64_t monotonic_ns() noexcept {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

__attribute__((format(printf, 1, 0))) void write_line(const char* format, va_list args,
                                                      std::uint64_t skipped) noexcept {
  char line[512];
  int length = std::snprintf(line, sizeof(line), "stallwatch: ");
  length +=
      std::vsnprintf(line + length, sizeof(line) - static_cast<std::size_t>(length), format, args);
  if (length > static_cast<int>(sizeof(line)) - 40) length = static_cast<int>(sizeof(line)) - 40;
  if (skipped > 0) {
    length += std::snprintf(line + length, sizeof(line) - static_cast<std::size_t>(length),
                            " (%llu earlier problems not shown)",
                            static_cast<unsigned long long>(skipped));
  }
  if (length > static_cast<int>(sizeof(line)) - 2) length = static_cast<int>(sizeof(line)) - 2;
  line[length++] = '\n';
  [[maybe_unused]] const ssize_t written =
      write(STDERR_FILENO, line, static_cast<std::size_t>(length));
}

}  // namespace

void report_notice(const char* format, ...) noexcept {
  if (!logging_enabled()) return;
  va_list args;
  va_start(args, format);
  write_line(format, args, 0);
  va_end(args);
}

void report_problem(const char* format, ...) noexcept {
  if (!logging_enabled()) return;
  const std::int64_t now = monotonic_ns();
  std::int64_t last = last_report_ns.load(std::memory_order_relaxed);
  if ((last != INT64_MIN && now - last < kIntervalNs) ||
      !last_report_ns.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    suppressed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const std::uint64_t skipped = suppressed.exchange(0, std::memory_order_relaxed);
  va_list args;
  va_start(args, format);
  write_line(format, args, skipped);
  va_end(args);
}

}  // namespace stallwatch::agent
