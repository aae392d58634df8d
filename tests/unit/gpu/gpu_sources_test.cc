// SPDX-License-Identifier: MIT
// The GPU activity sources through the public C ABI, end to end without a
// GPU: the agent dlopens the fake libcupti / libnvidia-ml.so.1 built in
// fakes/ (STALLWATCH_CUPTI_PATH / STALLWATCH_NVML_PATH), the test queues
// synthetic activity through the fake's controls, and a test collector checks
// what reaches the wire. Every body runs in a fresh child process (the agent
// and the GPU session are process-wide).

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "agent_test_util.h"
#include "fresh_process.h"
#include "gpu_fakes.h"
#include "test_collector.h"

namespace stallwatch::test {
namespace {

TEST(GpuSources, CuptiActivityBecomesGpuEventsOnStreamLanesOnTheAgentClock) {
  run_in_fresh_process([] {
    // CUPTI's clock an hour behind the agent's and running 200 ppm fast.
    setenv("FAKE_CUPTI_CLOCK_OFFSET_NS", "-3600000000000", 1);
    setenv("FAKE_CUPTI_CLOCK_PPM", "200", 1);
    TestCollector collector;
    start_with_fakes(collector);
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    EXPECT_TRUE(stderr_capture.agent_lines().empty()) << "no line when the first choice starts";
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
    EXPECT_EQ(gpu_stats().running, 1u);
    EXPECT_EQ(gpu_stats().fell_back, 0u);
    EXPECT_EQ(describe(), std::string("cupti [") + SW_FAKE_CUPTI +
                              ": STALLWATCH_CUPTI_PATH; runtime and driver launch calls only] "
                              "(nvml: /nonexistent/libnvidia-ml.so.1 not found)");

    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    EXPECT_EQ(fake.subscribers(), 0) << "the Activity API needs no subscription: none is kept";
    EXPECT_EQ(fake.enabled(10), 1) << "CONCURRENT_KERNEL";
    EXPECT_EQ(fake.enabled(1), 1) << "MEMCPY";
    EXPECT_EQ(fake.enabled(2), 1) << "MEMSET";
    EXPECT_EQ(fake.enabled(3), 0) << "never the serializing KERNEL kind";

    const std::int64_t agent_before = sw_now_ns();
    const std::uint64_t cupti0 = fake.now();
    const std::int64_t agent_after = sw_now_ns();
    fake.add_kernel(0, 7, cupti0 + 1 * kMs, cupti0 + 3 * kMs, "_Z6matmulPfS_");
    fake.add_memcpy(0, 13, cupti0 + 4 * kMs, cupti0 + 5 * kMs, 1);
    fake.add_memset(1, 7, cupti0 + 6 * kMs, cupti0 + 6 * kMs + 500'000);
    fake.add_other(cupti0 + 1 * kMs, cupti0 + 2 * kMs);
    ASSERT_TRUE(received_gpu_events(collector, 3)) << "the pump flushes CUPTI every 100 ms";

    std::map<std::string, ReceivedEvent> by_name;
    for (const ReceivedEvent& e : events_in(collector.received(), "gpu", kComplete)) {
      by_name[e.name] = e;
    }
    ASSERT_EQ(by_name.size(), 3u);
    const ReceivedEvent& kernel = by_name["matmul(float*, float*)"];
    const ReceivedEvent& copy = by_name["memcpy HtoD"];
    const ReceivedEvent& set = by_name["memset"];
    EXPECT_EQ(kernel.tid, sw_device_lane(0, 7));
    EXPECT_EQ(copy.tid, sw_device_lane(0, 13));
    EXPECT_EQ(set.tid, sw_device_lane(1, 7));
    // cupti0 was read between agent_before and agent_after (microseconds
    // apart, unless the thread was preempted).
    for (const auto& [event, offset] :
         {std::pair{&kernel, 1 * kMs}, std::pair{&copy, 4 * kMs}, std::pair{&set, 6 * kMs}}) {
      EXPECT_GE(event->ts_ns, agent_before + offset - 500'000) << event->name;
      EXPECT_LE(event->ts_ns, agent_after + offset + 500'000) << event->name;
    }
    EXPECT_NEAR(kernel.dur_ns, 2 * kMs, 10'000);
    EXPECT_NEAR(copy.dur_ns, 1 * kMs, 10'000);
    EXPECT_NEAR(set.dur_ns, 500'000, 10'000);
    EXPECT_EQ(latest_device_source(collector), SW_DEVICE_SOURCE_CUPTI);

    const sw_gpu_stats stats = gpu_stats();
    EXPECT_EQ(stats.activity_records, 3u);
    EXPECT_EQ(stats.activity_skipped, 1u) << "the runtime record is not device work";
    EXPECT_EQ(stats.activity_dropped, 0u);
    EXPECT_GE(stats.clock_samples, 1u);

    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(fake.subscribers(), 0);
    EXPECT_EQ(fake.enabled(10) + fake.enabled(1) + fake.enabled(2), 0);
    EXPECT_EQ(gpu_stats().running, 0u);
    EXPECT_EQ(latest_device_source(collector), SW_DEVICE_SOURCE_CUPTI)
        << "the events sent came from CUPTI: the declaration stays";
    EXPECT_EQ(sw_gpu_stop(), SW_ERR_NOT_STARTED);
  });
}

TEST(GpuSources, LaunchCallsArriveOnTheirThreadWithTheirKernelsCorrelationId) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    EXPECT_EQ(fake.enabled(5), 1) << "RUNTIME: the launch calls";

    // The two clocks read back to back; a thread preempted between the two
    // reads widens the bracket, not the test's tolerance.
    const std::int64_t agent_before = sw_now_ns();
    const std::uint64_t cupti0 = fake.now();
    const std::int64_t agent_after = sw_now_ns();
    const auto launcher_tid = static_cast<std::uint32_t>(gettid());
    fake.launch_kernel(0, 7, cupti0 + 1 * kMs, cupti0 + 1 * kMs + 5'000, cupti0 + 2 * kMs,
                       cupti0 + 3 * kMs, "_Z6matmulPfS_");
    std::thread([&] {
      fake.launch_kernel(0, 7, cupti0 + 4 * kMs, cupti0 + 4 * kMs + 7'000, cupti0 + 5 * kMs,
                         cupti0 + 6 * kMs, "_Z4stepv");
    }).join();
    fake.add_other(cupti0 + 1 * kMs, cupti0 + 2 * kMs);
    ASSERT_TRUE(received_gpu_events(collector, 2));
    ASSERT_TRUE(collector.receive_until(
        [](const auto& batches) {
          return events_in(batches, "cuda_runtime", kComplete).size() >= 2;
        },
        kPatience));

    const auto calls = events_in(collector.received(), "cuda_runtime", kComplete);
    const auto kernels = events_in(collector.received(), "gpu", kComplete);
    ASSERT_EQ(calls.size(), 2u) << "one record per launch call; other runtime calls are skipped";
    ASSERT_EQ(kernels.size(), 2u);
    std::map<std::uint32_t, ReceivedEvent> kernel_of;
    for (const ReceivedEvent& k : kernels) {
      EXPECT_EQ(k.flags & 4, 4) << "kEventFlagCorrelation: region_id is the correlation id";
      kernel_of[k.region_id] = k;
    }
    std::set<std::uint32_t> threads;
    for (const ReceivedEvent& call : calls) {
      EXPECT_EQ(call.name, "cudaLaunchKernel");
      EXPECT_EQ(call.flags & 4, 4);
      EXPECT_EQ(call.tid & 0x80000000u, 0u) << "a thread, never a device lane";
      ASSERT_EQ(kernel_of.count(call.region_id), 1u) << "its kernel has its correlation id";
      const ReceivedEvent& kernel = kernel_of[call.region_id];
      EXPECT_EQ(kernel.tid, sw_device_lane(0, 7));
      EXPECT_LT(call.ts_ns + call.dur_ns, kernel.ts_ns);
      threads.insert(call.tid);
    }
    EXPECT_EQ(threads.size(), 2u) << "each call on the thread that made it";
    EXPECT_EQ(threads.count(launcher_tid), 1u);
    const ReceivedEvent& first = calls[0].ts_ns < calls[1].ts_ns ? calls[0] : calls[1];
    EXPECT_GE(first.ts_ns, agent_before + 1 * kMs - 500'000);
    EXPECT_LE(first.ts_ns, agent_after + 1 * kMs + 500'000);
    EXPECT_NEAR(first.dur_ns, 5'000, 1'000);
    EXPECT_EQ(kernel_of[first.region_id].name, "matmul(float*, float*)");

    const sw_gpu_stats stats = gpu_stats();
    EXPECT_EQ(stats.activity_records, 4u);
    EXPECT_EQ(stats.activity_skipped, 1u) << "a runtime call that launches nothing";
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(fake.enabled(5), 0);
  });
}

// Triton and other JITs launch through the driver API: DRIVER records,
// sent like the runtime's launch calls (cat cuda_runtime, named after the
// driver call) so that the collector joins them the same way.
TEST(GpuSources, DriverApiLaunchesArriveLikeRuntimeOnes) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    EXPECT_EQ(fake.enabled(4), 1) << "DRIVER: the driver API's launch calls";

    const std::uint64_t cupti0 = fake.now();
    const auto launcher_tid = static_cast<std::uint32_t>(gettid());
    fake.launch_kernel_driver(0, 0, 3, cupti0 + 1 * kMs, cupti0 + 1 * kMs + 4'000, cupti0 + 2 * kMs,
                              cupti0 + 3 * kMs, "triton_poi_fused_add_0");
    fake.launch_kernel_driver(1, 0, 3, cupti0 + 4 * kMs, cupti0 + 4 * kMs + 6'000, cupti0 + 5 * kMs,
                              cupti0 + 6 * kMs, "triton_red_fused_sum_1");
    fake.launch_kernel(0, 3, cupti0 + 7 * kMs, cupti0 + 7 * kMs + 5'000, cupti0 + 8 * kMs,
                       cupti0 + 9 * kMs, "_Z6matmulPfS_");
    ASSERT_TRUE(received_gpu_events(collector, 3));
    ASSERT_TRUE(collector.receive_until(
        [](const auto& batches) {
          return events_in(batches, "cuda_runtime", kComplete).size() >= 3;
        },
        kPatience));

    const auto calls = events_in(collector.received(), "cuda_runtime", kComplete);
    const auto kernels = events_in(collector.received(), "gpu", kComplete);
    ASSERT_EQ(calls.size(), 3u);
    std::map<std::uint32_t, ReceivedEvent> kernel_of;
    for (const ReceivedEvent& k : kernels)
      kernel_of[k.region_id] = k;
    std::map<std::string, std::string> launched_by;  // kernel name -> call name
    for (const ReceivedEvent& call : calls) {
      EXPECT_EQ(call.flags & 4, 4) << "kEventFlagCorrelation";
      EXPECT_EQ(call.tid, launcher_tid);
      ASSERT_EQ(kernel_of.count(call.region_id), 1u) << call.name;
      EXPECT_LT(call.ts_ns + call.dur_ns, kernel_of[call.region_id].ts_ns);
      launched_by[kernel_of[call.region_id].name] = call.name;
    }
    EXPECT_EQ(launched_by,
              (std::map<std::string, std::string>{{"triton_poi_fused_add_0", "cuLaunchKernel"},
                                                  {"triton_red_fused_sum_1", "cuLaunchKernelEx"},
                                                  {"matmul(float*, float*)", "cudaLaunchKernel"}}));
    EXPECT_EQ(gpu_stats().activity_skipped, 0u);
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(fake.enabled(4), 0);
  });
}

// PyTorch makes several runtime calls per launch (cudaGetDevice,
// cudaStreamIsCapturing, ...). Where CUPTI has per-call switches, it records
// only the launch calls; elsewhere the parser skips the rest.
void make_calls_and_launches(FakeCupti& fake) {
  const std::uint64_t cupti0 = fake.now();
  fake.api_call(0, 17, cupti0 + 1 * kMs, cupti0 + 1 * kMs + 300);         // cudaGetDevice
  fake.api_call(0, 317, cupti0 + 1 * kMs + 400, cupti0 + 1 * kMs + 600);  // cudaStreamIsCapturing
  fake.launch_kernel(0, 7, cupti0 + 2 * kMs, cupti0 + 2 * kMs + 5'000, cupti0 + 3 * kMs,
                     cupti0 + 4 * kMs, "k");
  fake.api_call(1, 304, cupti0 + 5 * kMs, cupti0 + 5 * kMs + 200);  // cuCtxGetCurrent
  fake.launch_kernel_driver(0, 0, 7, cupti0 + 6 * kMs, cupti0 + 6 * kMs + 4'000, cupti0 + 7 * kMs,
                            cupti0 + 8 * kMs, "triton_poi_fused_add_0");
}

void expect_two_launches_arrive(TestCollector& collector) {
  ASSERT_TRUE(received_gpu_events(collector, 2));
  ASSERT_TRUE(collector.receive_until(
      [](const auto& batches) { return events_in(batches, "cuda_runtime", kComplete).size() >= 2; },
      kPatience));
  std::set<std::string> names;
  for (const ReceivedEvent& call : events_in(collector.received(), "cuda_runtime", kComplete))
    names.insert(call.name);
  EXPECT_EQ(names, (std::set<std::string>{"cudaLaunchKernel", "cuLaunchKernel"}));
}

TEST(GpuSources, CuptiRecordsOnlyTheLaunchCallsWhereItHasPerCallSwitches) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    // Every runtime call below 523 but the 10 launch calls, every driver call
    // below 807 but the 4.
    EXPECT_EQ(fake.api_switches(), (523 - 1 - 10) + (807 - 1 - 4));
    EXPECT_NE(describe().find("runtime and driver launch calls only"), std::string::npos)
        << describe();
    make_calls_and_launches(fake);
    expect_two_launches_arrive(collector);
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(gpu_stats().activity_records, 4u);
    EXPECT_EQ(gpu_stats().activity_skipped, 0u) << "CUPTI wrote no record of the other calls";
  });
}

TEST(GpuSources, WithoutPerCallSwitchesTheOtherCallsAreSkipped) {
  for (const char* how : {"FAKE_CUPTI_API_SWITCH_RESULT=27", "STALLWATCH_CUPTI_API_FILTER=0"}) {
    SCOPED_TRACE(how);
    run_in_fresh_process([how] {
      const std::string assignment = how;
      const auto eq = assignment.find('=');
      setenv(assignment.substr(0, eq).c_str(), assignment.substr(eq + 1).c_str(), 1);
      TestCollector collector;
      start_with_fakes(collector);
      ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
      FakeCupti fake;
      ASSERT_TRUE(fake.open());
      EXPECT_EQ(fake.api_switches(), 0);
      EXPECT_NE(describe().find("runtime and driver calls (launch calls kept by the parser)"),
                std::string::npos)
          << describe();
      make_calls_and_launches(fake);
      expect_two_launches_arrive(collector);
      ASSERT_EQ(sw_gpu_stop(), SW_OK);
      EXPECT_EQ(gpu_stats().activity_records, 4u);
      EXPECT_EQ(gpu_stats().activity_skipped, 3u);
    });
  }
}

TEST(GpuSources, LaunchRecordsCanBeTurnedOff) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_CUPTI_LAUNCHES", "0", 1);
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    EXPECT_EQ(fake.enabled(5), 0);
    EXPECT_EQ(fake.enabled(4), 0) << "nor the driver's";
    const std::uint64_t cupti0 = fake.now();
    fake.launch_kernel(0, 7, cupti0 + 1 * kMs, cupti0 + 1 * kMs + 5'000, cupti0 + 2 * kMs,
                       cupti0 + 3 * kMs, "k");
    ASSERT_TRUE(received_gpu_events(collector, 1));
    EXPECT_TRUE(events_in(collector.received(), "cuda_runtime", kComplete).empty());
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
  });
}

TEST(GpuSources, StopDeliversWhatCuptiStillHolds) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    const int forced_before = fake.flushes(1);
    fake.add_kernels(5, 0, 7, fake.now(), "last_kernel");
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_GT(fake.flushes(1), forced_before) << "stop force-flushes CUPTI";
    EXPECT_EQ(gpu_stats().activity_records, 5u);
    ASSERT_TRUE(received_gpu_events(collector, 5));
  });
}

TEST(GpuSources, SwStopEndsTheGpuSessionFirst) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    fake.add_kernels(3, 0, 7, fake.now(), "k");
    ASSERT_EQ(sw_stop(), SW_OK);
    EXPECT_EQ(fake.subscribers(), 0);
    EXPECT_EQ(gpu_stats().running, 0u);
    ASSERT_TRUE(collector.receive_until([](const auto& b) { return has_final(b); }, kPatience));
    EXPECT_EQ(events_in(collector.received(), "gpu", kComplete).size(), 3u)
        << "the final batch carries the last device records";
  });
}

TEST(GpuSources, CuptiTakenByAnotherClientFallsBackWithOneLine) {
  run_in_fresh_process([] {
    setenv("FAKE_CUPTI_SUBSCRIBE_RESULT", "39", 1);
    TestCollector collector;
    start_with_fakes(collector);
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start("auto"), SW_OK);
    const std::vector<std::string> lines = stderr_capture.agent_lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("compute-proxy"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("taken by another CUPTI client"), std::string::npos) << lines[0];
    EXPECT_EQ(gpu_stats().fell_back, 1u);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_NONE));
    EXPECT_EQ(latest_device_source(collector), SW_DEVICE_SOURCE_NONE);
    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    EXPECT_EQ(fake.enabled(10), 0) << "nothing enabled behind the other client's back";
  });
}

TEST(GpuSources, FallsBackToCudaEventsWhenTheCallerRecordsThem) {
  run_in_fresh_process([] {
    setenv("FAKE_CUPTI_SUBSCRIBE_RESULT", "39", 1);
    TestCollector collector;
    start_with_fakes(collector);
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start("cupti,cuda-events"), SW_OK);
    const std::vector<std::string> lines = stderr_capture.agent_lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("GPU activity from cuda-events"), std::string::npos) << lines[0];
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUDA_EVENTS));
    const sw_name_t gpu = sw_intern("gpu");
    const sw_name_t step = sw_intern("step");
    const sw_lane_t lane = sw_device_lane(0, 3);
    ASSERT_EQ(sw_complete_on(lane, gpu, step, sw_now_ns() - 5 * kMs, 4 * kMs), SW_OK);
    EXPECT_EQ(sw_complete_on(static_cast<sw_lane_t>(getpid()), gpu, step, sw_now_ns(), 1),
              SW_ERR_INVALID_ARGUMENT)
        << "a real thread id is not a lane";
    EXPECT_EQ(sw_complete_on(lane, gpu, step, sw_now_ns(), -1), SW_ERR_INVALID_ARGUMENT);
    ASSERT_TRUE(received_gpu_events(collector, 1));
    EXPECT_EQ(events_in(collector.received(), "gpu", kComplete)[0].tid, lane);
    EXPECT_EQ(latest_device_source(collector), SW_DEVICE_SOURCE_CUDA_EVENTS);
  });
}

TEST(GpuSources, LaneRegionsCarryTheCallersTimesOnTheLane) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector);
    const sw_name_t gpu = sw_intern("gpu");
    const sw_name_t forward = sw_intern("forward");
    const sw_lane_t lane = sw_device_lane(1, 9);
    const std::int64_t start = sw_now_ns() - 3000 * kMs;
    EXPECT_EQ(sw_region_begin_on(static_cast<sw_lane_t>(getpid()), gpu, forward, start), 0u)
        << "a real thread id is not a lane";
    const sw_region_t region = sw_region_begin_on(lane, gpu, forward, start);
    ASSERT_NE(region, 0u);
    const sw_region_t other = sw_region_begin_on(lane, gpu, forward, start + kMs);
    ASSERT_EQ(sw_region_end_on(other, start + 2 * kMs), SW_OK);
    std::thread([&] { EXPECT_EQ(sw_region_end_on(region, start + 2500 * kMs), SW_OK); }).join();
    EXPECT_EQ(sw_region_end_on(0, start), SW_DISABLED);
    ASSERT_TRUE(collector.receive_until(
        [&](const auto& batches) { return events_in(batches, "", 1).size() >= 2; }, kPatience));
    const std::vector<ReceivedEvent> begins = events_in(collector.received(), "gpu", 0);
    const std::vector<ReceivedEvent> ends = events_in(collector.received(), "", 1);
    ASSERT_EQ(begins.size(), 2u);
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_EQ(begins[0].tid, lane);
    EXPECT_EQ(begins[0].ts_ns, start) << "the caller's time, not the time of the call";
    EXPECT_NE(begins[0].region_id, begins[1].region_id);
    std::map<std::uint32_t, std::int64_t> end_of;
    for (const ReceivedEvent& e : ends) {
      EXPECT_EQ(e.tid, lane) << "the END carries the lane, whichever thread closed it";
      end_of[e.region_id] = e.ts_ns;
    }
    EXPECT_EQ(end_of[begins[0].region_id], start + 2500 * kMs);
    EXPECT_EQ(end_of[begins[1].region_id], start + 2 * kMs);
  });
}

TEST(GpuSources, MissingLibraryFallsBackWithOneLine) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector, "/nonexistent/libcupti.so");
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start(nullptr), SW_OK) << "NULL: STALLWATCH_GPU, else auto";
    const std::vector<std::string> lines = stderr_capture.agent_lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("cannot load STALLWATCH_CUPTI_PATH=/nonexistent/libcupti.so"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_NONE));
    EXPECT_EQ(gpu_stats().running, 1u) << "a session without a device source is still a session";
    EXPECT_EQ(sw_gpu_stop(), SW_OK);
  });
}

TEST(GpuSources, NoUsableGpuRollsBackAndFallsBack) {
  run_in_fresh_process([] {
    setenv("FAKE_CUPTI_ENABLE_RESULT", "15", 1);  // CUPTI_ERROR_NOT_INITIALIZED
    TestCollector collector;
    start_with_fakes(collector);
    StderrCapture stderr_capture;
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK);
    const std::vector<std::string> lines = stderr_capture.agent_lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("cuptiActivityEnable"), std::string::npos) << lines[0];
    FakeCupti fake;
    ASSERT_TRUE(fake.open());
    EXPECT_EQ(fake.subscribers(), 0) << "the failed start unsubscribed";
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_NONE));
  });
}

TEST(GpuSources, AnExhaustedBufferPoolCountsDropsAndReportsThem) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_CUPTI_BUFFERS", "2", 1);
    setenv("STALLWATCH_CUPTI_BUFFER_KB", "4", 1);  // 16 kernel records of the fake each
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    fake.add_kernels(100, 0, 7, fake.now(), "burst");
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    const sw_gpu_stats stats = gpu_stats();
    EXPECT_GE(stats.activity_records, 32u);
    EXPECT_GT(stats.activity_dropped, 0u);
    EXPECT_GE(stats.buffers_refused, 1u);
    EXPECT_EQ(stats.activity_records + stats.activity_dropped, 100u);
    ASSERT_TRUE(received_gpu_events(collector, stats.activity_records));
    ASSERT_TRUE(collector.receive_until(
        [&](const auto& batches) {
          std::uint64_t reported = 0;
          for (const ReceivedBatch& b : batches)
            reported += b.dropped_since_last;
          return reported >= stats.activity_dropped;
        },
        kPatience))
        << "device drops reach the collector as agent drops";
  });
}

TEST(GpuSources, NvmlCountersArriveOnDeviceLanes) {
  run_in_fresh_process([] {
    setenv("FAKE_NVML_DEVICES", "2", 1);
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, SW_FAKE_NVML);
    ASSERT_EQ(sw_gpu_start("nvml"), SW_OK);
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_NVML));
    EXPECT_EQ(gpu_stats().nvml_devices, 2u);
    ASSERT_TRUE(collector.receive_until(
        [](const auto& batches) {
          return events_in(batches, "gpu_counters", kCounter).size() >= 8;
        },
        kPatience));
    std::map<std::pair<std::uint32_t, std::string>, double> value;
    for (const ReceivedEvent& e : events_in(collector.received(), "gpu_counters", kCounter)) {
      EXPECT_EQ(e.flags & 1, 1) << "counters are doubles";
      value[{e.tid, e.name}] = std::bit_cast<double>(e.value);
    }
    const sw_lane_t gpu0 = sw_device_lane(0, SW_STREAM_DEVICE_WIDE);
    const sw_lane_t gpu1 = sw_device_lane(1, SW_STREAM_DEVICE_WIDE);
    EXPECT_EQ((value[{gpu0, "nvml.gpu_utilization_percent"}]), 40.0);
    EXPECT_EQ((value[{gpu1, "nvml.gpu_utilization_percent"}]), 41.0);
    EXPECT_EQ((value[{gpu0, "nvml.sm_clock_mhz"}]), 1410.0);
    EXPECT_EQ((value[{gpu1, "nvml.memory_used_bytes"}]), 8589934593.0);
    EXPECT_EQ((value[{gpu0, "nvml.power_watts"}]), 250.0);
    EXPECT_TRUE(events_in(collector.received(), "gpu", kComplete).empty())
        << "NVML is never device-busy time";
    EXPECT_EQ(latest_device_source(collector), SW_DEVICE_SOURCE_NVML);
  });
}

TEST(GpuSources, NvmlRunsAlongsideCuptiAndSkipsUnsupportedCounters) {
  run_in_fresh_process([] {
    setenv("FAKE_NVML_NO_POWER", "1", 1);
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, SW_FAKE_NVML);
    setenv("CUDA_VISIBLE_DEVICES", "GPU-00000000-0000-0000-0000-000000000000", 1);
    ASSERT_EQ(sw_gpu_start("auto"), SW_OK);
    EXPECT_EQ(describe(), std::string("cupti [") + SW_FAKE_CUPTI +
                              ": STALLWATCH_CUPTI_PATH; runtime and driver launch calls only] + "
                              "nvml");
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
    EXPECT_EQ(gpu_stats().nvml_devices, 1u);
    ASSERT_TRUE(collector.receive_until(
        [](const auto& batches) {
          return events_in(batches, "gpu_counters", kCounter).size() >= 6;
        },
        kPatience))
        << "two samples of three counters, 1 s apart";
    std::set<std::string> names;
    for (const ReceivedEvent& e : events_in(collector.received(), "gpu_counters", kCounter)) {
      names.insert(e.name);
    }
    EXPECT_EQ(names, (std::set<std::string>{"nvml.gpu_utilization_percent", "nvml.sm_clock_mhz",
                                            "nvml.memory_used_bytes"}));
    EXPECT_EQ(gpu_stats().nvml_errors, 0u) << "unsupported is not an error";
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
  });
}

TEST(GpuSources, StartRefusesBadModesAndASecondStart) {
  run_in_fresh_process([] {
    TestCollector collector;
    start_with_fakes(collector);
    EXPECT_EQ(sw_gpu_start("gpu"), SW_ERR_BAD_VALUE);
    EXPECT_EQ(gpu_stats().running, 0u);
    ASSERT_EQ(sw_gpu_start("none"), SW_OK);
    EXPECT_EQ(describe(), "compute-proxy");
    EXPECT_EQ(sw_gpu_start("cupti"), SW_ERR_ALREADY_STARTED);
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    ASSERT_EQ(sw_gpu_start("cupti"), SW_OK) << "a new session after a stop";
    EXPECT_EQ(gpu_stats().device_source, static_cast<std::uint32_t>(SW_DEVICE_SOURCE_CUPTI));
  });
}

TEST(GpuSources, DisabledAgentStartsNothing) {
  run_in_fresh_process([] {
    setenv("STALLWATCH_ENABLE", "0", 1);
    setenv("STALLWATCH_CUPTI_PATH", SW_FAKE_CUPTI, 1);
    EXPECT_EQ(sw_gpu_start("cupti"), SW_DISABLED);
    EXPECT_EQ(dlopen(SW_FAKE_CUPTI, RTLD_NOW | RTLD_NOLOAD), nullptr) << "CUPTI never loaded";
  });
}

TEST(GpuSources, AForkedChildLeavesTheParentsSessionAlone) {
  run_in_fresh_process([] {
    TestCollector collector;
    FakeCupti fake;
    ASSERT_TRUE(start_cupti_with_fakes(collector, fake));
    const int enabled = fake.enabled(10);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const sw_gpu_stats stats = gpu_stats();
      const bool ok = stats.running == 0 && stats.device_source == SW_DEVICE_SOURCE_NONE &&
                      sw_gpu_stop() == SW_ERR_NOT_STARTED && fake.enabled(10) == enabled;
      _exit(ok ? 0 : 3);
    }
    const ChildResult result = wait_child(child, std::chrono::seconds(30));
    EXPECT_TRUE(result.exited);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(gpu_stats().running, 1u);
    EXPECT_EQ(fake.enabled(10), 1);
    fake.add_kernels(2, 0, 7, fake.now(), "after_fork");
    ASSERT_EQ(sw_gpu_stop(), SW_OK);
    EXPECT_EQ(gpu_stats().activity_records, 2u);
  });
}

}  // namespace
}  // namespace stallwatch::test
