// SPDX-License-Identifier: MIT
// GPU sources end to end: the real agent library with its CUPTI source (or
// CUDA-event spans) and NVML counters, on the fake CUDA libraries, reporting
// to a real stallwatchd. The daemon must show the declared device source,
// device-busy time from the device lane, NVML counters per device beside it
// (job detail and /metrics), and the GPU lane by name on the timeline.

#include <gtest/gtest.h>

#include <map>

#include "integration_fixture.h"
#include "prometheus_samples.h"

namespace stallwatch::test {
namespace {

constexpr std::uint32_t kLane07 = 0x80000007;  // GPU 0, stream 7 (sw_device_lane)

// One run of integration_gpu_agent against `daemon`, two fake NVML devices.
ChildProcess gpu_agent(const DaemonProcess& daemon, const std::string& gpu,
                       const std::string& job) {
  return ChildProcess(
      ChildOptions{{STALLWATCH_INTEGRATION_GPU_AGENT, "--gpu", gpu, "--seconds", "3", "--job", job,
                    "--rank", "0"},
                   {{"STALLWATCH_COLLECTOR", daemon.tcp_endpoint()},
                    {"STALLWATCH_CUPTI_PATH", STALLWATCH_FAKE_CUPTI},
                    {"STALLWATCH_NVML_PATH", STALLWATCH_FAKE_NVML},
                    {"FAKE_CUDA_LIBRARY", STALLWATCH_FAKE_CUDA},
                    {"FAKE_NVML_DEVICES", "2"},
                    // Both fake devices, whatever the machine running the test sets.
                    {"CUDA_VISIBLE_DEVICES", "0,1"}},
                   daemon.dir() + "/" + job + ".log"});
}

// The finished rank's row, once it carries NVML counters of both devices.
json finished_row(const DaemonProcess& daemon, const std::string& job) {
  json row;
  wait_until(
      [&] {
        row = rank_row(daemon, job, 0);
        return row.is_object() && row.value("state", "") == "finished" &&
               row["gpu_counters"].size() == 2;
      },
      15s, 50ms);
  return row;
}

void expect_fake_nvml_readings(const json& row) {
  ASSERT_EQ(row["gpu_counters"].size(), 2u) << row.dump();
  for (int d = 0; d < 2; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    const json& g = row["gpu_counters"][d];
    EXPECT_EQ(g["device"], d);
    // tests/unit/gpu/fakes/fake_nvml.c: 40 + i %, 1410 MHz, 8 GiB + i bytes, 250 W.
    EXPECT_EQ(g["utilization_percent"]["latest"], 40 + d);
    EXPECT_EQ(g["sm_clock_mhz"]["latest"], 1410);
    EXPECT_EQ(g["memory_used_bytes"]["latest"], 8589934592.0 + d);
    EXPECT_EQ(g["power_watts"]["latest"], 250);
    EXPECT_EQ(g["utilization_percent"]["mean"]["total"], 40 + d);
    EXPECT_EQ(g["utilization_percent"]["mean"]["2s"], 40 + d) << "1 Hz samples fill a 2 s window";
    EXPECT_GE(g["age_seconds"].get<double>(), 0.0);
    EXPECT_LT(g["age_seconds"].get<double>(), 2.5) << "sampled until the agent stopped";
  }
  EXPECT_EQ(row["gpu_counters_ignored"], 0);
}

void expect_device_lane_on_timeline(const DaemonProcess& daemon, const std::string& job,
                                    const std::string& kernel) {
  const json t = get_json(daemon, "/api/v1/jobs/" + job + "/ranks/0/timeline?seconds=60");
  ASSERT_TRUE(t.is_object());
  json lane;
  for (const json& th : t["threads"]) {
    if (th["tid"] == kLane07) lane = th;
  }
  ASSERT_TRUE(lane.is_object()) << t["threads"].dump();
  EXPECT_EQ(lane["label"], "GPU 0 · stream 7");
  EXPECT_EQ(lane["device"], 0);
  EXPECT_EQ(lane["stream"], 7);
  EXPECT_EQ(lane["role"], "main");
  int kernels = 0;
  for (const json& r : t["regions"]) {
    if (r["tid"] != kLane07) continue;
    ++kernels;
    EXPECT_EQ(r["name"], kernel);
    EXPECT_EQ(r["class"], "device_busy");
  }
  EXPECT_GE(kernels, 10) << "one device region per iteration of about 100 ms";
  for (const json& th : t["threads"]) {
    if (th["tid"] == kLane07) continue;
    EXPECT_FALSE(th.contains("label")) << "a host thread: " << th.dump();
  }
}

void expect_gpu_gauges(const DaemonProcess& daemon, const std::string& job) {
  const std::vector<PromSample> samples = scrape_metrics(daemon);
  ASSERT_FALSE(samples.empty());
  for (int d = 0; d < 2; ++d) {
    const std::map<std::string, std::string> labels{
        {"job_id", job}, {"rank", "0"}, {"device", std::to_string(d)}};
    EXPECT_EQ(find_sample(samples, "stallwatch_gpu_utilization_percent", labels), 40 + d);
    EXPECT_EQ(find_sample(samples, "stallwatch_gpu_sm_clock_mhz", labels), 1410);
    EXPECT_EQ(find_sample(samples, "stallwatch_gpu_memory_used_bytes", labels), 8589934592.0 + d);
    EXPECT_EQ(find_sample(samples, "stallwatch_gpu_power_watts", labels), 250);
  }
}

// 30 ms of device work in each 100 ms iteration, none while the loop fetches.
void expect_device_busy_from_the_lane(const json& row) {
  const json& total = row["windows"]["total"];
  const double idle = total["device_idle_ratio"].get<double>();
  EXPECT_GT(idle, 0.55) << total.dump();
  EXPECT_LT(idle, 0.9) << total.dump();  // 0.7, more when a loaded machine oversleeps
  EXPECT_GT(total["data_stall_ratio"].get<double>(), 0.45) << total.dump();
  EXPECT_LT(total["device_busy_seconds"].get<double>(), total["compute_seconds"].get<double>())
      << "device busy comes from the lane, not the compute regions";
}

TEST(GpuTest, CuptiKernelsAndNvmlCountersReachTheApi) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ChildProcess agent = gpu_agent(daemon, "cupti", "gpu-cupti");
  ASSERT_TRUE(agent.start());
  ASSERT_EQ(agent.wait(30s), 0) << agent.output();

  const json row = finished_row(daemon, "gpu-cupti");
  ASSERT_TRUE(row.is_object()) << daemon.log() << agent.output();
  EXPECT_EQ(row["device_source"], "cupti");
  EXPECT_EQ(row["processes"][0]["device_source"], "cupti");
  expect_fake_nvml_readings(row);
  expect_device_busy_from_the_lane(row);
  expect_device_lane_on_timeline(daemon, "gpu-cupti", "matmul");
  expect_gpu_gauges(daemon, "gpu-cupti");
}

TEST(GpuTest, CudaEventSpansAndNvmlCountersReachTheApi) {
  DaemonProcess daemon(short_window_options());
  ASSERT_TRUE(daemon.start()) << daemon.log();
  ChildProcess agent = gpu_agent(daemon, "cuda-events", "gpu-events");
  ASSERT_TRUE(agent.start());
  ASSERT_EQ(agent.wait(30s), 0) << agent.output();

  const json row = finished_row(daemon, "gpu-events");
  ASSERT_TRUE(row.is_object()) << daemon.log() << agent.output();
  EXPECT_EQ(row["device_source"], "cuda-events");
  expect_fake_nvml_readings(row);
  expect_device_busy_from_the_lane(row);
  expect_device_lane_on_timeline(daemon, "gpu-events", "gpu/step");
  expect_gpu_gauges(daemon, "gpu-events");
}

}  // namespace
}  // namespace stallwatch::test
