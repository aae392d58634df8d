// SPDX-License-Identifier: MIT
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "stallwatch/stallwatch.h"
#include "wakeup.h"

namespace stallwatch::agent {

// The process's GPU activity session (sw_gpu_start / sw_gpu_stop): picks the
// device-busy source from a mode (gpu_mode.h) by trying each preference in
// turn, starts NVML alongside, declares the winner as the agent's
// device_source, and runs the pump thread ("stallwatch-gpu") that polls the
// sources every 100 ms. When the first preference cannot start it writes
// exactly one line saying why and what is used instead. The declared source
// outlives stop(): the events already sent came from it, and the collector
// keys the rank's device-busy signal on it until the process ends.
//
// start/stop/stats/describe take one mutex; the pump thread runs only while
// the sources it polls are started and never takes it. Every explicit agent
// stop (sw_stop) stops the session first, so its last records are sent.
// fork(): the child forgets the session without calling any library (CUDA
// is unusable in a forked child); its agent declares the configured
// device_source again. Process exit: the pump thread stops and the sources
// are abandoned rather than flushed, because the CUDA libraries' own atexit
// teardown may already have run. Process-wide; never destroyed.
class GpuManager {
 public:
  static GpuManager& instance() noexcept;

  int start(const char* mode) noexcept;
  int stop() noexcept;
  void fill_stats(sw_gpu_stats& out) noexcept;
  std::size_t describe(char* buffer, std::size_t size) noexcept;

 private:
  GpuManager() = default;

  int stop_locked() noexcept;
  std::string description_locked() const;  // with mutex_ held
  void install_hooks() noexcept;
  bool start_pump() noexcept;
  void stop_pump() noexcept;
  static void* pump_main(void* self) noexcept;
  static void wake_pump() noexcept;
  void pump() noexcept;

  static void on_agent_stop() noexcept;
  static void on_exit() noexcept;
  static void on_fork_prepare() noexcept;
  static void on_fork_parent() noexcept;
  static void on_fork_child() noexcept;

  std::mutex mutex_;
  bool running_ = false;
  bool cupti_running_ = false;
  bool nvml_running_ = false;
  bool hooks_installed_ = false;
  bool fell_back_ = false;
  bool late_failure_seen_ = false;  // pump thread only, while it runs
  pid_t owner_pid_ = 0;
  std::atomic<std::uint32_t> device_source_{SW_DEVICE_SOURCE_NONE};
  // What describe() says: the winning source's name, then (CUPTI) its live
  // status in brackets, then the tail (" + nvml", the reasons for falling back).
  std::string description_ = "none";
  bool described_cupti_ = false;
  std::string description_tail_;
  pthread_t pump_thread_{};
  bool pump_started_ = false;
  std::atomic<bool> pump_stop_{false};
  Wakeup pump_wakeup_;
};

}  // namespace stallwatch::agent
