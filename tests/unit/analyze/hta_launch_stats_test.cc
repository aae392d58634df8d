// SPDX-License-Identifier: MIT
#include "hta_launch_stats.h"

#include <gtest/gtest.h>

#include <string>

#include "hta_test_traces.h"

// Expected values: HTA's own output, tests/data/kineto/hta-reference/ (printed
// with three decimals, hence the tolerance).
namespace stallwatch::collector {
namespace {

void expect_describe(const Describe& d, std::size_t count, double mean, double stddev, double min,
                     double p25, double p50, double p75, double max) {
  constexpr double kPrinted = 5e-4;
  EXPECT_EQ(d.count, count);
  EXPECT_NEAR(d.mean, mean, kPrinted);
  EXPECT_NEAR(d.std, stddev, kPrinted);
  EXPECT_NEAR(d.min, min, kPrinted);
  EXPECT_NEAR(d.p25, p25, kPrinted);
  EXPECT_NEAR(d.p50, p50, kPrinted);
  EXPECT_NEAR(d.p75, p75, kPrinted);
  EXPECT_NEAR(d.max, max, kPrinted);
}

TEST(HtaLaunchStats, ReproducesHtaOnTheTwoRankNcclTrace) {
  const HtaBreakdown b = hta_two_rank();
  ASSERT_EQ(b.launch_stats.size(), 2u);
  const HtaLaunchStats& r0 = b.launch_stats[0];
  EXPECT_EQ(r0.launches.size(), 602u);
  expect_describe(r0.cpu_duration, 602, 8.487, 4.082, 4, 6, 7, 9, 31);
  expect_describe(r0.gpu_duration, 602, 502.061, 3925.381, 1, 7, 22, 111, 62783);
  expect_describe(r0.launch_delay, 602, 16412.163, 21746.259, 0, 321.5, 10246, 19264.25, 103661);
  const HtaLaunchStats& r1 = b.launch_stats[1];
  expect_describe(r1.cpu_duration, 577, 8.645, 4.643, 4, 6, 7, 9, 49);
  expect_describe(r1.gpu_duration, 577, 530.749, 3856.877, 1, 8, 19, 89, 57924);
  expect_describe(r1.launch_delay, 577, 16917.958, 22093.929, 0, 273, 10282, 24712, 113609);
}

TEST(HtaLaunchStats, ReproducesHtaOnTheNanosecondResolutionTrace) {
  const HtaBreakdown b = hta_ns_resolution();
  ASSERT_EQ(b.launch_stats.size(), 1u);
  const HtaLaunchStats& r = b.launch_stats[0];
  expect_describe(r.cpu_duration, 4876, 39.395, 113.813, 2, 4, 4, 6, 2010);
  expect_describe(r.gpu_duration, 4876, 76.809, 148.755, 0, 1, 3, 67, 1112);
  expect_describe(r.launch_delay, 4876, 66048.568, 24826.871, 0, 64496.75, 76013, 81270.5, 90938);
}

// Each launch against its kernel: durations, the delay from the end of the
// call to the kernel's start (0 when the kernel started first), and the
// counts against HTA's default cutoffs (50 µs calls, 100 µs delay).
TEST(HtaLaunchStats, JoinsLaunchesToKernelsByCorrelation) {
  const std::string trace = R"({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":10,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":20,"dur":60,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":90,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":100,"dur":4,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":15,"dur":3,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":70,"dur":30,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"relu","pid":0,"tid":7,"ts":300,"dur":2,"args":{"stream":7,"correlation":4}}
  ]})";
  testing::TempDir dir;
  const HtaBreakdown b = hta_breakdown_of({dir.write("launches.json", trace)});
  ASSERT_EQ(b.launch_stats.size(), 1u);
  const HtaLaunchStats& s = b.launch_stats[0];
  ASSERT_EQ(s.launches.size(), 3u);
  EXPECT_EQ(s.launches[0].correlation, 1);
  EXPECT_EQ(s.launches[0].cpu_duration_us, 10);
  EXPECT_EQ(s.launches[0].gpu_duration_us, 3);
  EXPECT_EQ(s.launches[0].launch_delay_us, 5);
  EXPECT_EQ(s.launches[1].correlation, 2);
  EXPECT_EQ(s.launches[1].launch_delay_us, 0);  // started 10 µs before the call returned
  EXPECT_EQ(s.launches[2].correlation, 4);
  EXPECT_EQ(s.launches[2].launch_delay_us, 196);
  EXPECT_EQ(s.short_kernels, 2u);  // gemm (3 < 10) and relu (2 < 4)
  EXPECT_EQ(s.long_launches, 1u);  // the 60 µs memcpy call
  EXPECT_EQ(s.late_starts, 1u);    // relu
}

}  // namespace
}  // namespace stallwatch::collector
