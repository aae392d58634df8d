// SPDX-License-Identifier: MIT
#include "hta_breakdown.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hta_test_traces.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

// Reference values from HTA itself for the shared traces (tests/data/README.md).
TEST(HtaBreakdown, ReproducesHtaOnTheNanosecondResolutionTrace) {
  const HtaBreakdown b =
      hta_breakdown_of({testing::test_data("kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")});
  EXPECT_EQ(b.profiler_steps, 5u);
  EXPECT_TRUE(b.dropped_last_step);
  ASSERT_EQ(b.ranks.size(), 1u);
  const HtaRankBreakdown& r = b.ranks[0];
  EXPECT_EQ(r.idle_ns, 10113'000);
  EXPECT_EQ(r.compute_ns, 372150'000);
  EXPECT_EQ(r.non_compute_ns, 2371'000);
  EXPECT_EQ(r.span_ns, 384634'000);
  EXPECT_DOUBLE_EQ(r.idle_pct, 2.63);
  EXPECT_DOUBLE_EQ(r.compute_pct, 96.75);
  EXPECT_DOUBLE_EQ(r.non_compute_pct, 0.62);
  EXPECT_FALSE(r.has_comm);
  ASSERT_EQ(r.streams.size(), 1u);
  EXPECT_EQ(r.streams[0].stream, 7);
  EXPECT_EQ(r.streams[0].host_wait_ns, 1709'000);
  EXPECT_EQ(r.streams[0].kernel_wait_ns, 8404'000);
  EXPECT_EQ(r.streams[0].other_ns, 0);
  EXPECT_EQ(r.gpu_events, 4876u);
}

TEST(HtaBreakdown, ReproducesHtaOnTheTwoRankNcclTrace) {
  const HtaBreakdown b =
      hta_breakdown_of({testing::test_data("kineto/two-rank/sampled_rank-0.json.gz"),
                        testing::test_data("kineto/two-rank/sampled_rank-1.json.gz")});
  ASSERT_EQ(b.ranks.size(), 2u);
  const HtaRankBreakdown& r0 = b.ranks[0];
  EXPECT_EQ(r0.idle_ns, 321378'000);
  EXPECT_EQ(r0.compute_ns, 106252'000);
  EXPECT_EQ(r0.non_compute_ns, 172428'000);
  EXPECT_EQ(r0.span_ns, 600058'000);
  ASSERT_TRUE(r0.has_comm);
  EXPECT_DOUBLE_EQ(r0.comm_comp_overlap_pct, 11.81);
  const HtaRankBreakdown& r1 = b.ranks[1];
  EXPECT_EQ(r1.idle_ns, 328671'000);
  EXPECT_EQ(r1.compute_ns, 135548'000);
  EXPECT_EQ(r1.non_compute_ns, 136455'000);
  EXPECT_EQ(r1.span_ns, 600674'000);
  ASSERT_TRUE(r1.has_comm);
  EXPECT_DOUBLE_EQ(r1.comm_comp_overlap_pct, 20.05);
}

// A hand-made trace exercising each rule once: rounding (start up, end down),
// the last ProfilerStep dropped, kernels kept only through a kept launch,
// merging across streams, and the three idle categories.
TEST(HtaBreakdown, FollowsEachOfHtasRules) {
  const std::string trace = R"({"traceEvents": [
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0.5,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100.5,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":2,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":61,"dur":2,"args":{"correlation":4}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":2,"args":{"correlation":5}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10.2,"dur":9.9,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"relu","pid":0,"tid":7,"ts":30.2,"dur":10,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":80,"dur":10,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":9,"ts":85,"dur":10,"args":{"stream":9,"correlation":4}},
    {"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":160,"dur":10,"args":{"stream":7,"correlation":5}}
  ]})";
  TempDir dir;
  const HtaBreakdown b = hta_breakdown_of({dir.write("rules.json", trace)});
  ASSERT_EQ(b.ranks.size(), 1u);
  const HtaRankBreakdown& r = b.ranks[0];
  // Kept: gemm [11,20), relu [31,40), gemm [80,90), memcpy [85,95); "late" was
  // launched in the last step. Merged: [11,20) [31,40) [80,95) -> 33 busy of 84.
  EXPECT_EQ(r.gpu_events, 4u);
  EXPECT_EQ(r.span_ns, 84'000);
  EXPECT_EQ(r.idle_ns, 51'000);
  EXPECT_EQ(r.compute_ns, 28'000);
  EXPECT_EQ(r.non_compute_ns, 5'000);
  EXPECT_DOUBLE_EQ(r.idle_pct, 60.71);
  ASSERT_EQ(r.streams.size(), 2u);
  // Stream 7: relu's launch (t=2) came before gemm ended: gap 11 < 30 -> kernel
  // wait; the second gemm launched at 60 after relu ended at 40 -> host wait 40.
  EXPECT_EQ(r.streams[0].stream, 7);
  EXPECT_EQ(r.streams[0].kernel_wait_ns, 11'000);
  EXPECT_EQ(r.streams[0].host_wait_ns, 40'000);
  EXPECT_EQ(r.streams[0].other_ns, 0);
  EXPECT_EQ(r.streams[1].stream, 9);
}

// HTA's index_correlation: a kernel with a correlation id >= 0 that no CPU row
// has is "launched" at traceEvents[0] (whatever that row is); one with another
// negative id has no launch. Stream 7: a [10,15) b [60,65) c [100,105)
// d [200,205) f [400,405).
TEST(HtaBreakdown, AKernelWithoutItsLaunchIsLaunchedAtTheFirstEventAsInHta) {
  const std::string events = R"(
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":60,"dur":5,"args":{"stream":7,"correlation":9}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":100,"dur":5,"args":{"stream":7,"correlation":-5}},
    {"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":200,"dur":5,"args":{"stream":7,"correlation":0}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":8,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"e","pid":0,"tid":7,"ts":300,"dur":5,"args":{"stream":0,"correlation":4}},
    {"ph":"X","cat":"kernel","name":"f","pid":0,"tid":7,"ts":400,"dur":5,"args":{"stream":7,"correlation":4}}
  ]})";
  TempDir dir;
  // First event at 50: only b's gap (launch 50 > a's end 15) waits on the host.
  const HtaBreakdown early = hta_breakdown_of({dir.write(
      "early.json",
      R"({"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::first","pid":1,"tid":1,"ts":50,"dur":1},)" +
          events)});
  ASSERT_EQ(early.ranks.size(), 1u);
  ASSERT_EQ(early.ranks[0].streams.size(), 2u);
  EXPECT_EQ(early.ranks[0].streams[1].stream, 7);
  EXPECT_EQ(early.ranks[0].streams[1].host_wait_ns, 45'000);
  EXPECT_EQ(early.ranks[0].streams[1].other_ns, 325'000);
  // First event at 150 (not an operator, kept as row 0): d's gap too.
  const HtaBreakdown late = hta_breakdown_of({dir.write(
      "late.json",
      R"({"traceEvents": [{"ph":"X","cat":"python_function","name":"x","pid":1,"tid":1,"ts":150,"dur":1},)" +
          events)});
  ASSERT_EQ(late.ranks.size(), 1u);
  ASSERT_EQ(late.ranks[0].streams.size(), 2u);
  EXPECT_EQ(late.ranks[0].streams[1].host_wait_ns, 140'000);
  EXPECT_EQ(late.ranks[0].streams[1].other_ns, 230'000);
  // A metadata event first, then the row at 150: no row is element 0, so no
  // kernel has a launch but a's.
  const HtaBreakdown none = hta_breakdown_of({dir.write(
      "none.json",
      R"({"traceEvents": [{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},)"
      R"({"ph":"X","cat":"python_function","name":"x","pid":1,"tid":1,"ts":150,"dur":1},)" +
          events)});
  ASSERT_EQ(none.ranks.size(), 1u);
  ASSERT_EQ(none.ranks[0].streams.size(), 2u);
  EXPECT_EQ(none.ranks[0].streams[1].host_wait_ns, 0);
  EXPECT_EQ(none.ranks[0].streams[1].other_ns, 370'000);
}

TEST(HtaBreakdown, RoundsLikePandas) {
  EXPECT_DOUBLE_EQ(round_pct(10113.0 / 384634.0), 2.63);
  EXPECT_DOUBLE_EQ(round_pct(0.5), 50.0);
  EXPECT_DOUBLE_EQ(round_pct(0.00125), 0.12);  // 12.5 -> 12: half to even, as numpy
}

}  // namespace
}  // namespace stallwatch::collector
