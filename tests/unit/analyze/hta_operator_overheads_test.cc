// SPDX-License-Identifier: MIT
#include "hta_operator_overheads.h"

#include <gtest/gtest.h>

#include <string>

#include "hta_test_traces.h"

namespace stallwatch::collector {
namespace {

// One thread: aten::linear (with a nested aten::addmm and three launches),
// a data-loading call, aten::relu (one launch), and aten::linear again (no
// launch).
TEST(HtaOperatorAttribution, SplitsHostTimeIntoTheStudysOverheads) {
  const std::string trace = R"json({"traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":5,"dur":55},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":4,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":70,"dur":10,"args":{"correlation":3}},
    {"ph":"X","cat":"cpu_op","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":100,"dur":50},
    {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":160,"dur":40},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":170,"dur":2,"args":{"correlation":4}},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":210,"dur":50},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":20,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"bias","pid":0,"tid":7,"ts":40,"dur":5,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH","pid":0,"tid":7,"ts":80,"dur":10,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"relu","pid":0,"tid":7,"ts":180,"dur":3,"args":{"stream":7,"correlation":4}}
  ]})json";
  testing::TempDir dir;
  const HtaOperatorAttribution a = hta_breakdown_of({dir.write("ops.json", trace)}).operators;
  // Top-level operators only, by host runtime; data loading is left out.
  ASSERT_EQ(a.operators.size(), 2u);
  const HtaOperatorStats& linear = a.operators[0];
  EXPECT_EQ(linear.name, "aten::linear");
  EXPECT_EQ(linear.calls, 2u);
  EXPECT_EQ(linear.host_runtime_us, 150);
  EXPECT_EQ(linear.device_runtime_us, 35);  // gemm, bias and the copy
  ASSERT_EQ(linear.t1.count, 1u);           // the first call has no predecessor
  EXPECT_DOUBLE_EQ(linear.t1.mean_us, 10);  // after relu ended at 200
  ASSERT_EQ(linear.t2.count, 1u);           // the second call launches nothing
  EXPECT_DOUBLE_EQ(linear.t2.mean_us, 10);
  EXPECT_DOUBLE_EQ(linear.t3.mean_us, 20);  // last launch ended at 80
  ASSERT_EQ(linear.t5.count, 2u);           // 30 - 14 and 70 - 35
  EXPECT_DOUBLE_EQ(linear.t5.mean_us, 25.5);
  EXPECT_DOUBLE_EQ(linear.t5.p95_us, 16 + 0.95 * 19);
  // Its first device activity, gemm, started 20 µs after the call.
  ASSERT_EQ(linear.device_start_delay.count, 1u);
  EXPECT_DOUBLE_EQ(linear.device_start_delay.mean_us, 20);

  const HtaOperatorStats& relu = a.operators[1];
  EXPECT_EQ(relu.name, "aten::relu");
  EXPECT_EQ(relu.host_runtime_us, 40);
  EXPECT_EQ(relu.device_runtime_us, 3);
  EXPECT_DOUBLE_EQ(relu.t1.mean_us, 10);  // data loading ended at 150: not a gap
  EXPECT_DOUBLE_EQ(relu.t2.mean_us, 10);
  EXPECT_DOUBLE_EQ(relu.t3.mean_us, 28);
  EXPECT_EQ(relu.t5.count, 0u);
  EXPECT_DOUBLE_EQ(relu.device_start_delay.p50_us, 20);  // relu kernel at 180

  // T4 per launch name.
  ASSERT_EQ(a.launches.size(), 2u);
  EXPECT_EQ(a.launches[0].name, "cudaLaunchKernel");
  EXPECT_EQ(a.launches[0].t4.count, 3u);
  EXPECT_DOUBLE_EQ(a.launches[0].t4.p50_us, 4);
  EXPECT_DOUBLE_EQ(a.launches[0].t4.mean_us, 11.0 / 3);
  EXPECT_EQ(a.launches[1].name, "cudaMemcpyAsync");
  EXPECT_DOUBLE_EQ(a.launches[1].t4.mean_us, 10);
}

}  // namespace
}  // namespace stallwatch::collector
