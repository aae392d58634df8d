// SPDX-License-Identifier: MIT
#pragma once

// What the GPU-source tests share: the controls of the fake CUDA libraries
// built in fakes/ (resolved in the copies the agent loaded), a capture of
// the agent's stderr lines, and the agent started against a TestCollector
// with those fakes in place. Every test body runs in a fresh child process.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "agent_test_util.h"
#include "test_collector.h"

namespace stallwatch::test {

inline constexpr std::uint8_t kComplete = 2, kCounter = 4;
inline constexpr std::int64_t kMs = 1'000'000;

// The fake libcupti's controls, resolved in the copy the agent loaded.
struct FakeCupti {
  std::uint64_t (*now)() = nullptr;
  void (*add_kernel)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                     const char*) = nullptr;
  void (*add_kernels)(std::size_t, std::uint32_t, std::uint32_t, std::uint64_t,
                      const char*) = nullptr;
  void (*add_memcpy)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                     std::uint8_t) = nullptr;
  void (*add_memset)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t) = nullptr;
  void (*add_other)(std::uint64_t, std::uint64_t) = nullptr;
  void (*launch_kernel)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t, std::uint64_t,
                        std::uint64_t, const char*) = nullptr;
  void (*launch_kernels)(std::size_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                         std::uint64_t, std::uint64_t, const char*) = nullptr;
  void (*launch_kernel_driver)(int, std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                               std::uint64_t, std::uint64_t, const char*) = nullptr;
  void (*add_untimed_kernel)(std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t,
                             const char*) = nullptr;
  void (*api_call)(int, std::uint32_t, std::uint64_t, std::uint64_t) = nullptr;
  int (*api_switches)() = nullptr;
  int (*subscribers)() = nullptr;
  int (*enabled)(int) = nullptr;
  int (*flushes)(int) = nullptr;
  std::size_t (*pending)() = nullptr;
  std::size_t (*last_max_records)() = nullptr;
  std::int64_t (*worker_callback_max_ns)() = nullptr;
  int (*worker_deliveries)() = nullptr;
  void (*set_next_record_hook)(void (*)()) = nullptr;
  int (*profiler_start)() = nullptr;
  int (*profiler_stop)() = nullptr;
  int (*use_tsc_clock)() = nullptr;

  bool open() {
    void* handle = dlopen(SW_FAKE_CUPTI, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return false;
    bool ok = true;
    const auto get = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, symbol));
      ok = ok && fn != nullptr;
    };
    get(now, "fake_cupti_now");
    get(add_kernel, "fake_cupti_add_kernel");
    get(add_kernels, "fake_cupti_add_kernels");
    get(add_memcpy, "fake_cupti_add_memcpy");
    get(add_memset, "fake_cupti_add_memset");
    get(add_other, "fake_cupti_add_other");
    get(launch_kernel, "fake_cupti_launch_kernel");
    get(launch_kernels, "fake_cupti_launch_kernels");
    get(launch_kernel_driver, "fake_cupti_launch_kernel_driver");
    get(add_untimed_kernel, "fake_cupti_add_untimed_kernel");
    get(api_call, "fake_cupti_api_call");
    get(api_switches, "fake_cupti_api_switches");
    get(subscribers, "fake_cupti_subscribers");
    get(enabled, "fake_cupti_enabled");
    get(flushes, "fake_cupti_flushes");
    get(pending, "fake_cupti_pending");
    get(last_max_records, "fake_cupti_last_max_records");
    get(worker_callback_max_ns, "fake_cupti_worker_callback_max_ns");
    get(worker_deliveries, "fake_cupti_worker_deliveries");
    get(set_next_record_hook, "fake_cupti_set_next_record_hook");
    get(profiler_start, "fake_cupti_profiler_start");
    get(profiler_stop, "fake_cupti_profiler_stop");
    get(use_tsc_clock, "fake_cupti_use_tsc_clock");
    return ok;
  }
};

// The fake CUDA driver (libcuda.so.1): loaded by the test like a program
// that uses CUDA would have it, so that the agent's dlopen finds it.
struct FakeCuda {
  int (*init)(unsigned) = nullptr;
  int (*initialized)() = nullptr;
  int (*initialized_elsewhere)() = nullptr;

  bool open() {
    void* handle = dlopen(SW_FAKE_CUDA, RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) return false;
    init = reinterpret_cast<int (*)(unsigned)>(dlsym(handle, "cuInit"));
    initialized = reinterpret_cast<int (*)()>(dlsym(handle, "fake_cuda_initialized"));
    initialized_elsewhere =
        reinterpret_cast<int (*)()>(dlsym(handle, "fake_cuda_initialized_elsewhere"));
    return init != nullptr && initialized != nullptr && initialized_elsewhere != nullptr;
  }
};

// Redirects this process's stderr into a file until destroyed.
class StderrCapture {
 public:
  StderrCapture() : path_(TestCollector::make_temp_directory() + "/stderr") {
    std::fflush(stderr);
    saved_ = dup(2);
    std::FILE* file = std::fopen(path_.c_str(), "w");
    dup2(fileno(file), 2);
    std::fclose(file);
  }
  ~StderrCapture() { restore(); }
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::vector<std::string> agent_lines() {
    restore();
    std::ifstream in(path_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("stallwatch:", 0) == 0) lines.push_back(line);
    }
    return lines;
  }

 private:
  std::string path_;
  int saved_ = -1;
};

// The agent of this (child) process, talking to `collector`, with the fake
// libraries (or `cupti` / `nvml` paths) in place and, unless `init_cuda` is
// false, CUDA initialized as a training program has it. Logging on.
inline void start_with_fakes(TestCollector& collector, const char* cupti = SW_FAKE_CUPTI,
                             const char* nvml = "/nonexistent/libnvidia-ml.so.1",
                             bool init_cuda = true,
                             const Settings& settings = {{"heartbeat_ms", "10"}}) {
  setenv("STALLWATCH_CUPTI_PATH", cupti, 1);
  setenv("STALLWATCH_NVML_PATH", nvml, 1);
  setenv("STALLWATCH_LOG", "1", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("LOCAL_RANK");
  FakeCuda cuda;
  ASSERT_TRUE(cuda.open());
  if (init_cuda) {
    ASSERT_EQ(cuda.init(0), 0);
  }
  ASSERT_EQ(start_agent(collector.endpoint(), settings), SW_OK);
  ASSERT_TRUE(wait_connected(collector));
}

// start_with_fakes, then the CUPTI source started and the fake CUPTI's
// controls resolved: how most tests of the source begin. False on failure.
inline bool start_cupti_with_fakes(TestCollector& collector, FakeCupti& fake) {
  start_with_fakes(collector);
  return !::testing::Test::HasFatalFailure() && sw_gpu_start("cupti") == SW_OK && fake.open();
}

inline sw_gpu_stats gpu_stats() {
  sw_gpu_stats stats{};
  stats.size = sizeof(stats);
  sw_gpu_get_stats(&stats);
  return stats;
}

inline std::string describe() {
  char text[512];
  sw_gpu_describe(text, sizeof(text));
  return text;
}

inline std::vector<ReceivedEvent> events_in(const std::vector<ReceivedBatch>& batches,
                                            const std::string& cat, std::uint8_t kind) {
  std::vector<ReceivedEvent> out;
  for (const ReceivedBatch& batch : batches) {
    for (const ReceivedEvent& e : batch.events) {
      if (e.cat == cat && e.kind == kind) out.push_back(e);
    }
  }
  return out;
}

inline bool received_gpu_events(TestCollector& collector, std::size_t count) {
  return collector.receive_until(
      [&](const auto& batches) { return events_in(batches, "gpu", kComplete).size() >= count; },
      kPatience);
}

// The device_source of the newest batch received so far, after waiting for
// one more heartbeat.
inline int latest_device_source(TestCollector& collector) {
  const std::size_t seen = collector.received().size();
  collector.receive_until([&](const auto& batches) { return batches.size() > seen + 1; },
                          kPatience);
  return collector.received().empty() ? -1 : collector.received().back().device_source;
}

}  // namespace stallwatch::test
