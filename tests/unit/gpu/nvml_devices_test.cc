// SPDX-License-Identifier: MIT
// Which devices the NVML source reports, against the fake CUDA driver and
// NVML: CUDA numbers devices fastest first, NVML by PCI bus, so a rank's
// device is found by UUID, and each rank reports only its own device.

#include <gtest/gtest.h>
#include <stallwatch/stallwatch.h>
#include <stdlib.h>

#include <bit>
#include <map>
#include <string>

#include "fresh_process.h"
#include "gpu_fakes.h"

namespace stallwatch::test {
namespace {

// Each device lane's latest nvml.gpu_utilization_percent (the fake NVML
// reports 40 + its own index), once `lanes` lanes sent one.
std::map<std::uint32_t, double> utilization_by_lane(TestCollector& collector, std::size_t lanes) {
  std::map<std::uint32_t, double> out;
  collector.receive_until(
      [&](const auto& batches) {
        out.clear();
        for (const ReceivedEvent& e : events_in(batches, "gpu_counters", kCounter)) {
          if (e.name == "nvml.gpu_utilization_percent") out[e.tid] = std::bit_cast<double>(e.value);
        }
        return out.size() >= lanes;
      },
      kPatience);
  return out;
}

TEST(NvmlDevices, ARankReportsItsOwnDeviceFoundByUuidNotByIndex) {
  run_in_fresh_process([] {
    setenv("FAKE_NVML_DEVICES", "3", 1);
    setenv("FAKE_CUDA_ORDER", "2,0,1", 1);  // fastest first: CUDA 0 is NVML 2
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, SW_FAKE_NVML);
    setenv("LOCAL_RANK", "1", 1);
    ASSERT_EQ(sw_gpu_start("nvml"), SW_OK);
    EXPECT_EQ(gpu_stats().nvml_devices, 1u) << "only the rank's device, not the node's";
    const auto by_lane = utilization_by_lane(collector, 1);
    ASSERT_EQ(by_lane.size(), 1u);
    const sw_lane_t lane = sw_device_lane(1, SW_STREAM_DEVICE_WIDE);
    ASSERT_EQ(by_lane.count(lane), 1u);
    EXPECT_EQ(by_lane.at(lane), 40.0) << "CUDA device 1 is NVML device 0";
  });
}

TEST(NvmlDevices, AMigInstanceNamedInCudaVisibleDevicesIsSampled) {
  run_in_fresh_process([] {
    setenv("FAKE_NVML_DEVICES", "3", 1);
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, SW_FAKE_NVML);
    setenv("CUDA_VISIBLE_DEVICES", "MIG-00000000-0000-0000-0000-000000000102", 1);
    ASSERT_EQ(sw_gpu_start("nvml"), SW_OK);
    EXPECT_EQ(gpu_stats().nvml_devices, 1u);
    const auto by_lane = utilization_by_lane(collector, 1);
    ASSERT_EQ(by_lane.size(), 1u);
    EXPECT_EQ(by_lane.begin()->first, sw_device_lane(0, SW_STREAM_DEVICE_WIDE));
    EXPECT_EQ(by_lane.begin()->second, 42.0);
  });
}

TEST(NvmlDevices, IndicesWaitForTheProgramToInitializeCuda) {
  run_in_fresh_process([] {
    setenv("FAKE_NVML_DEVICES", "2", 1);
    setenv("FAKE_CUDA_ORDER", "1,0", 1);
    TestCollector collector;
    start_with_fakes(collector, SW_FAKE_CUPTI, SW_FAKE_NVML, false);
    ASSERT_EQ(sw_gpu_start("nvml"), SW_OK);
    FakeCuda cuda;
    ASSERT_TRUE(cuda.open());
    EXPECT_EQ(gpu_stats().nvml_devices, 0u) << "no guess before CUDA says which is which";
    EXPECT_EQ(cuda.initialized(), 0);
    ASSERT_EQ(cuda.init(0), 0);
    const auto by_lane = utilization_by_lane(collector, 2);
    EXPECT_EQ(by_lane.at(sw_device_lane(0, SW_STREAM_DEVICE_WIDE)), 41.0);
    EXPECT_EQ(by_lane.at(sw_device_lane(1, SW_STREAM_DEVICE_WIDE)), 40.0);
  });
}

}  // namespace
}  // namespace stallwatch::test
