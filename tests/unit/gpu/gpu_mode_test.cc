// SPDX-License-Identifier: MIT
#include "gpu_mode.h"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace stallwatch::agent
