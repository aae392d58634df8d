// SPDX-License-Identifier: MIT
#include "nvml_device_choice.h"

#include <gtest/gtest.h>

namespace stallwatch::agent {
namespace {

TEST(NvmlDevicePlan, IndicesAreCudaOrdinalsLeftForTheDriverNotNvmlIndices) {
  // CUDA_VISIBLE_DEVICES=2,0: this process's CUDA devices 0 and 1 are the
  // physical devices CUDA numbers 2 and 0, fastest first; which NVML devices
  // those are only the driver can say.
  const NvmlDevicePlan plan = plan_nvml_devices("2, 0", nullptr);
  EXPECT_FALSE(plan.all);
  ASSERT_EQ(plan.devices.size(), 2u);
  EXPECT_EQ(plan.devices[0].ordinal, 0u);
  EXPECT_EQ(plan.devices[1].ordinal, 1u);
  EXPECT_TRUE(plan.devices[0].uuid.empty());
  EXPECT_TRUE(plan.devices[1].uuid.empty());
}

TEST(NvmlDevicePlan, KeepsGpuAndMigUuidsAndStopsAtTheFirstBadEntry) {
  const NvmlDevicePlan uuids = plan_nvml_devices("GPU-1234-abcd,MIG-5678,1", nullptr);
  ASSERT_EQ(uuids.devices.size(), 3u);
  EXPECT_EQ(uuids.devices[0].uuid, "GPU-1234-abcd");
  EXPECT_EQ(uuids.devices[1].uuid, "MIG-5678") << "a MIG instance is a device of its own";
  EXPECT_EQ(uuids.devices[1].ordinal, 1u);
  EXPECT_TRUE(uuids.devices[2].uuid.empty());
  EXPECT_EQ(plan_nvml_devices("0,x,1", nullptr).devices.size(), 1u)
      << "CUDA ignores entries from the first invalid one on";
  EXPECT_TRUE(plan_nvml_devices("", nullptr).devices.empty()) << "an empty list hides every device";
  EXPECT_FALSE(plan_nvml_devices("", nullptr).all);
  EXPECT_TRUE(plan_nvml_devices("-1", nullptr).devices.empty());
}

TEST(NvmlDevicePlan, ARankReportsOnlyItsOwnDevice) {
  // torchrun: every rank sees the node's GPUs and uses device LOCAL_RANK.
  const NvmlDevicePlan shared = plan_nvml_devices("0,1,2,3", "2");
  ASSERT_EQ(shared.devices.size(), 1u);
  EXPECT_EQ(shared.devices[0].ordinal, 2u);
  // A launcher that gives each rank one device.
  const NvmlDevicePlan own = plan_nvml_devices("GPU-77", "3");
  ASSERT_EQ(own.devices.size(), 1u);
  EXPECT_EQ(own.devices[0].ordinal, 0u);
  EXPECT_EQ(own.devices[0].uuid, "GPU-77");
  EXPECT_TRUE(plan_nvml_devices("0,1", "5").devices.empty()) << "a rank past its devices";
  const NvmlDevicePlan unset = plan_nvml_devices(nullptr, "3");
  ASSERT_EQ(unset.devices.size(), 1u);
  EXPECT_EQ(unset.devices[0].ordinal, 3u);
  EXPECT_FALSE(unset.all);
}

TEST(NvmlDevicePlan, WithoutEitherVariableEveryCudaDevice) {
  const NvmlDevicePlan plan = plan_nvml_devices(nullptr, nullptr);
  EXPECT_TRUE(plan.all);
  EXPECT_TRUE(plan.devices.empty());
  EXPECT_TRUE(plan_nvml_devices(nullptr, "x").all) << "an unreadable LOCAL_RANK is no rank";
}

}  // namespace
}  // namespace stallwatch::agent
