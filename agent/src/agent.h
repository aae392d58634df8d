// SPDX-License-Identifier: MIT
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "agent_config.h"
#include "agent_counters.h"
#include "agent_state.h"
#include "buffer_registry.h"
#include "name_table.h"
#include "sender.h"
#include "wakeup.h"

struct sw_stats;

namespace stallwatch::agent {

// The process-wide agent: lifecycle (start, stop, lazy start, exit, fork),
// the thread-buffer registry, the name table and the statistics.
//
// Created on first use and never destroyed, so no static destructor or
// thread exit can observe it half torn down. Lifecycle calls hold one lock
// and may block for at most linger_ms (stop); recording threads never take it
// once running (see api_record.cc), nor does flush(). Process exit runs stop() from an atexit
// hook, giving up rather than hanging if another thread holds the lock.
// fork(): the prepare hook takes every agent lock so the child inherits a
// consistent state; the child abandons the parent's sender and ZeroMQ
// context, drops the parent's buffered events, zeroes its statistics and
// sequence, and starts its own sender on its first recording call, as a
// worker whose ppid is the parent.
class Agent {
 public:
  // Null only when the first allocation failed.
  static Agent* instance() noexcept;

  int start(const AgentConfig* config) noexcept;
  int stop() noexcept;
  int flush(int timeout_ms) noexcept;
  // Starts lazily when nothing was started yet or in a forked child. True
  // when the agent is running afterwards.
  bool ensure_started() noexcept;
  // Slow path of the first event on a thread. Null when not running or out of memory.
  ThreadBuffer* register_current_thread() noexcept;
  // A recording call that found no running agent or no buffer.
  void count_refused() noexcept { counters_.refused.fetch_add(1, std::memory_order_relaxed); }
  void fill_stats(sw_stats& stats);

  NameTable& names() noexcept { return names_; }

  // The device_source declared in every batch (wire Source.device_source).
  // Starts as the configured one at each start; a GPU session declares its
  // winner (set_device_source), or the configured one again when it found
  // none (restore_device_source). Any thread; the sender picks it up per batch.
  void set_device_source(DeviceSource source) noexcept {
    device_source_.store(source, std::memory_order_relaxed);
  }
  void restore_device_source() noexcept;
  // Device records lost before they became events (e.g. CUPTI had no
  // buffer): reported to the collector with the agent's other drops.
  void count_device_drops(std::uint64_t count) noexcept {
    counters_.device_dropped.fetch_add(count, std::memory_order_relaxed);
  }
  // Per-thread ring capacity in force.
  std::uint32_t buffer_events() const noexcept {
    return buffer_events_.load(std::memory_order_relaxed);
  }
  // Runs at the start of every explicit stop(), before the sender's final
  // batch (the GPU sources deliver what they still hold). Set once.
  void set_stop_hook(void (*hook)() noexcept) noexcept {
    stop_hook_.store(hook, std::memory_order_release);
  }

 private:
  Agent() = default;
  int start_locked(AgentConfig config) noexcept;
  int stop_locked() noexcept;
  void install_hooks() noexcept;

  static void on_exit() noexcept;
  static void on_fork_prepare() noexcept;
  static void on_fork_parent() noexcept;
  static void on_fork_child() noexcept;

  std::mutex lifecycle_;
  NameTable names_;
  BufferRegistry registry_;
  AgentCounters counters_;
  Wakeup wakeup_;
  FlushSignal flush_;
  AgentConfig config_;  // of the last start; a forked child restarts with it
  Sender* sender_ = nullptr;
  std::vector<Sender*> abandoned_;  // parents' senders, kept reachable in a child
  std::atomic<std::uint32_t> buffer_events_{16384};
  std::atomic<DeviceSource> device_source_{DeviceSource::kNone};
  std::atomic<void (*)() noexcept> stop_hook_{nullptr};
  bool hooks_installed_ = false;
  pid_t forking_pid_ = 0;
  pid_t parent_pid_ = 0;  // set in a forked child
};

}  // namespace stallwatch::agent
