// SPDX-License-Identifier: MIT
// The CUPTI source against a fake libcupti that keeps the real one's rules
// (fakes/fake_cupti.c): buffers come back from CUPTI's own thread and only
// once full and complete, unfinished records lose their timestamps in a
// forced flush, one subscriber at a time, another client's timestamp
// callback changes CUPTI's clock, and CUPTI initializes the CUDA driver.
// Each test is what a training process would notice on a real GPU.

#include <gtest/gtest.h>
#include <signal.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "fresh_process.h"
#include "gpu_fakes.h"

namespace stallwatch::test {
namespace {

using std::chrono::steady_clock;

// The first gpu event to arrive, and how long after `since` it did.
bool first_gpu_event_within(TestCollector& collector, std::chrono::milliseconds limit) {
  return collector.receive_until(
      [](const auto& batches) { return !events_in(batches, "gpu", kComplete).empty(); }, limit);
}

TEST(CuptiRules, AProfilerStartedBesideTheSourceStillGetsTheKernels) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    // torch.profiler's Kineto subscribes first thing; CPU-only when that fails.
    ASSERT_EQ(fake.profiler_start(), 0) << "the source must not hold CUPTI's one subscription";
    fake.add_kernels(3, 0, 7, fake.now() - 10 * kMs, "profiled");
    EXPECT_EQ(fake.profiler_stop(), 3) << "the profiler's trace has the kernels";
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
  });
}

TEST(CuptiRules, AnotherClientsCycleCounterClockStillMapsOntoTheAgentClock) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector);
    ASSERT_NE(dlopen(SW_FAKE_CUPTI, RTLD_NOW | RTLD_GLOBAL), nullptr);
    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    // A profiler ran earlier in the process: CUPTI now counts CPU cycles.
    ASSERT_EQ(fake.use_tsc_clock(), 0);
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(450));  // a few clock samples
    const std::uint64_t ticks_per_50ms = 125'000'000;             // 2.5 ticks per ns
    const std::uint64_t end = fake.now();
    const std::int64_t agent_end = sw_now_ns();
    fake.add_kernel(0, 3, end - ticks_per_50ms, end, "cycles");
    ASSERT_TRUE(received_gpu_events(collector, 1));
    const ReceivedEvent kernel = events_in(collector.received(), "gpu", kComplete).at(0);
    EXPECT_NEAR(kernel.dur_ns, 50 * kMs, kMs) << "a tick is not a nanosecond";
    EXPECT_NEAR(kernel.ts_ns + kernel.dur_ns, agent_end, 2 * kMs);
    EXPECT_EQ(gpu_stats().clock_resets, 0u) << "a clock of another rate is not a step";
  });
}

TEST(CuptiRules, BuffersComeBackWithinTheLatenessWhileTheGpuLagsBehind) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    // 100 kernels a second, each launched 50 ms before the GPU runs it: the
    // buffer being filled always holds an unfinished kernel.
    std::atomic<bool> stop{false};
    std::thread launcher([&] {
      while (!stop.load()) {
        const std::uint64_t now = fake.now();
        fake.add_kernel(0, 7, now + 45 * kMs, now + 50 * kMs, "lagging");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    const bool arrived = first_gpu_event_within(collector, std::chrono::milliseconds(1500));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const sw_gpu_stats running = gpu_stats();
    stop.store(true);
    launcher.join();
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_TRUE(arrived) << "no kernel record reached the collector in 1.5 s";
    EXPECT_GT(running.activity_records, 100u);
    EXPECT_GT(running.delivery_delay_ns, 0u);
    EXPECT_LT(running.delivery_delay_ns, 600'000'000u)
        << "in steady state a buffer fills in 200 ms and completes 50 ms later";
    EXPECT_LT(running.delivery_delay_max_ns, 1'500'000'000u)
        << "the collector counts device time that arrives within 2 s";
    EXPECT_LE(running.records_per_buffer, 64u) << "buffers sized to the record rate";
    // The first buffer, sized for a burst, is forced back after 1 s; the
    // kernels still running then lose their timestamps, and are counted.
    EXPECT_LE(running.forced_flushes, 1u);
    EXPECT_LE(gpu_stats().activity_dropped, 10u);
    EXPECT_EQ(gpu_stats().activity_dropped, gpu_stats().activity_untimed);
  });
}

TEST(CuptiRules, AKernelLongerThanASecondArrivesWholeOnceBuffersAreSizedToTheRate) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    // Training steps first, so that the record rate is known ...
    for (int i = 0; i < 30; ++i) {
      const std::uint64_t now = fake.now();
      fake.add_kernel(0, 7, now, now + 5 * kMs, "step");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(received_gpu_events(collector, 30));
    // ... then one kernel of 2.5 s (a collective waiting for a slow rank):
    // its buffer stays out until it ends, and no forced flush takes it.
    const std::uint64_t now = fake.now();
    fake.add_kernel(0, 7, now, now + 2500 * kMs, "long");
    ASSERT_TRUE(received_gpu_events(collector, 31));
    const sw_gpu_stats running = gpu_stats();
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(running.forced_flushes, 0u);
    EXPECT_EQ(running.activity_untimed, 0u);
    EXPECT_EQ(running.activity_dropped, 0u);
    bool whole = false;
    for (const ReceivedEvent& e : events_in(collector.received(), "gpu", kComplete))
      whole = whole || (e.dur_ns > 2490 * kMs && e.dur_ns < 2510 * kMs);
    EXPECT_TRUE(whole) << "the 2.5 s kernel arrived with its full length";
  });
}

TEST(CuptiRules, CuptisThreadIsNeverKeptWaitingInTheBufferCallback) {
  run_in_fresh_process([] {
    TestCollector collector;
    // A small ring: the records of one buffer need several sends.
    start_with_fakes(collector, SW_FAKE_CUPTI, "/nonexistent/libnvidia-ml.so.1", true,
                     {{"heartbeat_ms", "10"}, {"buffer_events", "256"}});
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    // Launches in bursts over 100 ms, as a training step makes them: CUPTI's
    // worker thread hands back the buffers that fill meanwhile.
    for (int burst = 0; burst < 20; ++burst) {
      fake.add_kernels(250, 0, 7, fake.now() - 20 * kMs, "burst");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto deadline = steady_clock::now() + std::chrono::seconds(10);
    while (fake.worker_deliveries() == 0 && steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_GT(fake.worker_deliveries(), 0) << "full buffers come back on CUPTI's thread";
    ASSERT_TRUE(received_gpu_events(collector, 5000));
    EXPECT_LT(fake.worker_callback_max_ns(), 2'000'000)
        << "CUPTI's thread waited in the callback (it delivers every client's buffers)";
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(gpu_stats().activity_records, 5000u);
    EXPECT_EQ(gpu_stats().activity_dropped, 0u);
  });
}

TEST(CuptiRules, RecordsWithoutTimestampsAreLostDeviceTimeNotSkippedRecords) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_CUPTI_STOP_WAIT_MS", "200", 1);
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    const std::uint64_t now = fake.now();
    fake.add_kernel(0, 7, now - 3 * kMs, now - 2 * kMs, "timed");
    fake.add_untimed_kernel(0, 7, now - 2 * kMs, now - 1 * kMs, "no_device_memory");
    fake.add_kernel(0, 7, now, now + 60'000 * kMs, "still_running_at_stop");
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    const sw_gpu_stats stats = gpu_stats();
    EXPECT_EQ(stats.activity_records, 1u);
    EXPECT_EQ(stats.activity_untimed, 2u);
    EXPECT_EQ(stats.activity_dropped, 2u) << "their device time is lost";
    EXPECT_EQ(stats.activity_skipped, 0u);
    ASSERT_TRUE(collector.receive_until(
        [](const auto& batches) {
          std::uint64_t reported = 0;
          for (const ReceivedBatch& b : batches)
            reported += b.dropped_since_last;
          return reported >= 2;
        },
        kPatience))
        << "and the collector hears of it";
  });
}

TEST(CuptiRules, StopLetsTheDeviceFinishTheLastKernels) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    const std::uint64_t now = fake.now();
    fake.add_kernel(0, 7, now + 100 * kMs, now + 300 * kMs, "last_step");
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    const sw_gpu_stats stats = gpu_stats();
    EXPECT_EQ(stats.activity_records, 1u) << "the kernel still running at stop is not lost";
    EXPECT_EQ(stats.activity_dropped, 0u);
    ASSERT_TRUE(received_gpu_events(collector, 1));
    EXPECT_NEAR(events_in(collector.received(), "gpu", kComplete).at(0).dur_ns, 200 * kMs, kMs);
  });
}

TEST(CuptiRules, StartedBeforeCudaItLeavesCudaToTheChildrenTheProgramForks) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, "/nonexistent/libnvidia-ml.so.1", false);
    FakeCuda cuda;
    ASSERT_TRUE(cuda.open());
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
    EXPECT_NE(describe().find("waiting for the program to initialize CUDA"), std::string::npos)
        << describe();
    EXPECT_EQ(cuda.initialized(), 0) << "the agent initialized CUDA";
    // A DataLoader worker (fork) that uses CUDA itself.
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(cuda.init(0) == 0 ? 0 : 3);
    const ChildResult result = wait_child(child, std::chrono::seconds(30));
    EXPECT_TRUE(result.exited);
    EXPECT_EQ(result.exit_code, 0) << "the forked child cannot initialize CUDA";
    // The program initializes CUDA: the source arms within a poll.
    ASSERT_EQ(cuda.init(0), 0);
    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    const auto deadline = steady_clock::now() + std::chrono::seconds(5);
    // Armed: the kinds are enabled, then the description changes.
    while ((fake.enabled(10) == 0 || describe().find("waiting") != std::string::npos) &&
           steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(fake.enabled(10), 1);
    EXPECT_EQ(describe().find("waiting"), std::string::npos) << describe();
    fake.add_kernel(0, 7, fake.now() - 2 * kMs, fake.now() - kMs, "after_init");
    ASSERT_TRUE(received_gpu_events(collector, 1));
  });
}

TEST(CuptiRules, CuptiTakenAsFoundOnceCudaIsUpFallsBackWithOneLine) {
  run_in_fresh_process([] {
    setenv("FAKE_CUPTI_SUBSCRIBE_RESULT", "39", 1);
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, "/nonexistent/libnvidia-ml.so.1", false);
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
    FakeCuda cuda;
    ASSERT_TRUE(cuda.open());
    ASSERT_EQ(cuda.init(0), 0);
    const auto deadline = steady_clock::now() + std::chrono::seconds(5);
    while (gpu_stats().fell_back == 0 && steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(gpu_stats().fell_back, 1u);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_NONE));
    EXPECT_EQ(describe().rfind("compute-proxy", 0), 0u) << describe();
    EXPECT_TRUE(collector.receive_until(
        [](const auto& batches) {
          return !batches.empty() && batches.back().device_source == SW_DEVICE_SOURCE_NONE;
        },
        kPatience))
        << "the wire stops declaring cupti";
    const std::vector<std::string> lines = stderr_capture.agent_lines();
    ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
    EXPECT_NE(lines[0].find("GPU activity from compute-proxy (cupti: taken by another CUPTI"),
              std::string::npos)
        << lines[0];
  });
}

pid_t forked_in_callback = -1;

// Runs in the child forked while the agent reads a delivered buffer.
void fork_inside_delivery() {
  const pid_t pid = fork();
  if (pid != 0) {
    forked_in_callback = pid;
    return;
  }
  alarm(10);  // a hang ends the child with SIGALRM
  sw_gpu_stats stats{};
  stats.size = sizeof(stats);
  char text[256];
  const bool ok = sw_gpu_get_stats(&stats) == SW_OK && stats.running == 0 &&
                  sw_gpu_describe(text, sizeof(text)) > 0 && sw_gpu_start("cupti") == SW_OK &&
                  gpu_stats().device_source == SW_DEVICE_SOURCE_NONE &&
                  sw_mark(sw_intern("test"), sw_intern("child"), 1) != SW_ERR_INTERNAL &&
                  sw_gpu_stop() == SW_OK;
  _exit(ok ? 0 : 3);
}

TEST(CuptiRules, AWorkerForkedWhileABufferIsReadNeitherHangsNorTouchesCupti) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    fake.set_next_record_hook(&fork_inside_delivery);
    fake.add_kernels(4, 0, 7, fake.now() - 10 * kMs, "k");
    ASSERT_TRUE(received_gpu_events(collector, 4));
    ASSERT_GT(forked_in_callback, 0);
    const ChildResult result = wait_child(forked_in_callback, std::chrono::seconds(30));
    EXPECT_TRUE(result.exited) << "the child hung";
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(fake.enabled(10), 1) << "the child left CUPTI alone";
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
  });
}

// Point the agent at the fake toolkit (libcupti.so, .so.13, .so.12 under
// $CUDA_HOME/lib64) instead of STALLWATCH_CUPTI_PATH.
void use_fake_toolkit(const char* driver_version) {
  unsetenv("STALLWATCH_CUPTI_PATH");
  setenv("CUDA_HOME", SW_FAKE_TOOLKIT, 1);
  unsetenv("CUDA_PATH");
  setenv("FAKE_CUDA_DRIVER_VERSION", driver_version, 1);
}

TEST(CuptiRules, TakesTheCuptiOfTheCudaRuntimeInTheProcess) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector);
    use_fake_toolkit("13000");
    // The program (PyTorch built for CUDA 12) loaded its CUDA runtime.
    ASSERT_NE(dlopen(SW_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL), nullptr);
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    const std::string text = describe();
    EXPECT_NE(text.find(std::string(SW_FAKE_TOOLKIT) + "/lib64/libcupti.so.12: matches the "
                                                       "CUDA 12 runtime in the process"),
              std::string::npos)
        << text;
  });
}

TEST(CuptiRules, PassesOverACuptiNewerThanTheDriver) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector);
    use_fake_toolkit("12040");
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    const std::string text = describe();
    EXPECT_NE(text.find(std::string(SW_FAKE_TOOLKIT) + "/lib64/libcupti.so.12: CUDA 12, the "
                                                       "newest found that the driver (CUDA 12.4) "
                                                       "supports"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("libcupti.so.13 (CUDA 13)"), std::string::npos) << text;
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
  });
}

}  // namespace
}  // namespace stallwatch::test
