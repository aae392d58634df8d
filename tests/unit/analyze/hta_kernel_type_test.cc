// SPDX-License-Identifier: MIT
#include "hta_kernel_type.h"

#include <gtest/gtest.h>

#include <string>

#include "hta_test_traces.h"

namespace stallwatch::collector {
namespace {

using testing::TempDir;

constexpr auto kComm = HtaKernelType::kCommunication;
constexpr auto kMemory = HtaKernelType::kMemory;
constexpr auto kCompute = HtaKernelType::kComputation;
constexpr auto kOther = HtaKernelType::kOther;

TEST(HtaKernelType, ClassifiesCudaKernelsAsHtaDoes) {
  EXPECT_EQ(hta_kernel_type("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned "
                            "long, ncclWork*)"),
            kComm);
  EXPECT_EQ(hta_kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage)"),
            kComm);
  EXPECT_EQ(hta_kernel_type("Memcpy DtoD (Device -> Device)"), kMemory);
  EXPECT_EQ(hta_kernel_type("Memcpy HtoD (Pinned -> Device)"), kMemory);
  EXPECT_EQ(hta_kernel_type("Memset (Device)"), kMemory);
  EXPECT_EQ(hta_kernel_type("ampere_sgemm_128x64_nn"), kCompute);
  EXPECT_EQ(hta_kernel_type("Event Sync"), kOther);
  EXPECT_EQ(hta_kernel_type("Context Sync"), kOther);
  // "nccl" must lead and "Kernel" follow it; a kernel that only mentions NCCL
  // computes, and a name with Memcpy inside (not leading) is neither.
  EXPECT_EQ(hta_kernel_type("void fused_ncclKernel_wrapper()"), kCompute);
  EXPECT_EQ(hta_kernel_type("ncclGroupEnd"), kCompute);
  EXPECT_EQ(hta_kernel_type("void at::native::batchedMemcpy<float>()"), kOther);
  EXPECT_EQ(hta_kernel_type("memcpy_kernel"), kCompute);  // case matters
}

TEST(HtaKernelType, ClassifiesRocmAndMtiaKernelsAsHtaDoes) {
  // RCCL keeps NCCL's kernel names; ROCm copies are named as on CUDA.
  EXPECT_EQ(hta_kernel_type("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"), kComm);
  EXPECT_EQ(hta_kernel_type("Memcpy DtoH (Device -> Host)"), kMemory);
  EXPECT_EQ(hta_kernel_type("Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1_SN"), kCompute);
  EXPECT_EQ(hta_kernel_type("__amd_rocclr_copyBuffer"), kCompute);
  // MTIA's DMA transfers are memory.
  EXPECT_EQ(hta_kernel_type("dma_copy_h2d"), kMemory);
  EXPECT_EQ(hta_kernel_type("mtia_fused_linear_relu"), kCompute);
}

TEST(HtaKernelType, SpellsTypesAsHta) {
  EXPECT_EQ(hta_kernel_type_name(kComm), "COMMUNICATION");
  EXPECT_EQ(hta_kernel_type_name(kMemory), "MEMORY");
  EXPECT_EQ(hta_kernel_type_name(kCompute), "COMPUTATION");
  EXPECT_EQ(hta_kernel_type_name(kOther), "OTHER");
}

// The temporal breakdown counts only computation kernels as compute: a RCCL
// kernel, an MTIA DMA and a sync row all land in non-compute time.
TEST(HtaKernelType, DecidesTheTemporalBreakdownsComputeTime) {
  const std::string trace = R"json({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"Cijk_gemm","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":8,"ts":20,"dur":20,"args":{"stream":8,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"dma_copy_h2d","pid":0,"tid":9,"ts":40,"dur":5,"args":{"stream":9,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"Event Sync","pid":0,"tid":7,"ts":45,"dur":5,"args":{"stream":7,"correlation":4}}
  ]
})json";
  TempDir dir;
  const HtaBreakdown b = hta_breakdown_of({dir.write("types.json", trace)});
  ASSERT_EQ(b.ranks.size(), 1u);
  EXPECT_EQ(b.ranks[0].span_ns, 40'000);
  EXPECT_EQ(b.ranks[0].idle_ns, 0);
  EXPECT_EQ(b.ranks[0].compute_ns, 10'000);
  EXPECT_EQ(b.ranks[0].non_compute_ns, 30'000);
  // The kernel breakdown leaves "OTHER" out, as HTA does.
  ASSERT_EQ(b.kernels.types.size(), 3u);
  EXPECT_EQ(b.kernels.types[0].kernel_type, "COMMUNICATION");
  EXPECT_EQ(b.kernels.types[0].sum_us, 20);
  EXPECT_EQ(b.kernels.types[1].kernel_type, "COMPUTATION");
  EXPECT_EQ(b.kernels.types[1].sum_us, 10);
  EXPECT_EQ(b.kernels.types[2].kernel_type, "MEMORY");
  EXPECT_EQ(b.kernels.types[2].sum_us, 5);
}

}  // namespace
}  // namespace stallwatch::collector
