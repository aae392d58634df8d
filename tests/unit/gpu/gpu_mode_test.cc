#include "gpu_mode.h"

#include <gtest/gtest.h>

#include <vector>

#include "nvml_device_choice.h"

namespace stallwatch::agent {
namespace {

using Choices = std::vector<GpuChoice>;

TEST(GpuMode, AutoIsCuptiWithNvmlAlongside) {
  const auto mode = parse_gpu_mode("auto");
  ASSERT_TRUE(mode.has_value());
  EXPECT_EQ(mode->preferences, Choices{GpuChoice::kCupti});
  EXPECT_TRUE(mode->nvml_alongside);
}

TEST(GpuMode, AListIsTriedInOrder) {
  const auto mode = parse_gpu_mode(" cupti , cuda-events");
  ASSERT_TRUE(mode.has_value());
  EXPECT_EQ(mode->preferences, (Choices{GpuChoice::kCupti, GpuChoice::kCudaEvents}));
  EXPECT_TRUE(mode->nvml_alongside);
}

TEST(GpuMode, NoneAndNvmlDoNotAddNvmlAlongside) {
  const auto none = parse_gpu_mode("none");
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->preferences, Choices{GpuChoice::kNone});
  EXPECT_FALSE(none->nvml_alongside);
  const auto nvml = parse_gpu_mode("cupti,nvml");
  ASSERT_TRUE(nvml.has_value());
  EXPECT_EQ(nvml->preferences, (Choices{GpuChoice::kCupti, GpuChoice::kNvml}));
  EXPECT_FALSE(nvml->nvml_alongside) << "NVML is a preference there, not an extra";
  const auto events = parse_gpu_mode("cuda-events");
  ASSERT_TRUE(events.has_value());
  EXPECT_TRUE(events->nvml_alongside);
}

TEST(GpuMode, RefusesAnythingElse) {
  for (const char* text : {"", "gpu", "cupti,", ",cupti", "cupti,,none", "CUPTI", "cuda_events"}) {
    EXPECT_FALSE(parse_gpu_mode(text).has_value()) << "'" << text << "'";
  }
}

TEST(GpuMode, NamesEachChoice) {
  EXPECT_STREQ(to_string(GpuChoice::kCupti), "cupti");
  EXPECT_STREQ(to_string(GpuChoice::kCudaEvents), "cuda-events");
  EXPECT_STREQ(to_string(GpuChoice::kNvml), "nvml");
  EXPECT_STREQ(to_string(GpuChoice::kNone), "none");
}

TEST(NvmlDeviceChoice, FollowsCudaVisibleDevicesInOrder) {
  const auto devices = choose_nvml_devices("2, 0", nullptr, 4);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].ordinal, 0u);
  EXPECT_EQ(devices[0].index, 2u);
  EXPECT_EQ(devices[1].ordinal, 1u);
  EXPECT_EQ(devices[1].index, 0u);
}

TEST(NvmlDeviceChoice, TakesUuidsSkipsMigAndStopsAtTheFirstBadEntry) {
  const auto uuids = choose_nvml_devices("GPU-1234-abcd,1", "3", 4);
  ASSERT_EQ(uuids.size(), 2u);
  EXPECT_EQ(uuids[0].uuid, "GPU-1234-abcd");
  EXPECT_EQ(uuids[1].index, 1u);
  EXPECT_EQ(uuids[1].ordinal, 1u);
  const auto mig = choose_nvml_devices("MIG-x,1", nullptr, 4);
  ASSERT_EQ(mig.size(), 1u);
  EXPECT_EQ(mig[0].index, 1u);
  EXPECT_EQ(mig[0].ordinal, 1u);
  const auto bad = choose_nvml_devices("0,7,1", nullptr, 4);
  ASSERT_EQ(bad.size(), 1u) << "CUDA ignores entries from the first invalid one on";
  EXPECT_TRUE(choose_nvml_devices("", nullptr, 4).empty()) << "an empty list hides every device";
  EXPECT_TRUE(choose_nvml_devices("-1", nullptr, 4).empty());
}

TEST(NvmlDeviceChoice, UsesLocalRankElseEveryDevice) {
  const auto local = choose_nvml_devices(nullptr, "3", 8);
  ASSERT_EQ(local.size(), 1u);
  EXPECT_EQ(local[0].index, 3u);
  EXPECT_EQ(local[0].ordinal, 3u);
  EXPECT_EQ(choose_nvml_devices(nullptr, "9", 8).size(), 8u) << "a rank past the devices";
  EXPECT_EQ(choose_nvml_devices(nullptr, nullptr, 2).size(), 2u);
  EXPECT_EQ(choose_nvml_devices(nullptr, nullptr, 40).size(), kMaxNvmlDevices);
  EXPECT_TRUE(choose_nvml_devices(nullptr, nullptr, 0).empty());
}

}  // namespace
}  // namespace stallwatch::agent
