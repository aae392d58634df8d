// SPDX-License-Identifier: MIT
#include "hta_kernel_breakdown.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hta_test_traces.h"

// Expected values: HTA's own output, tests/data/kineto/hta-reference/.
namespace stallwatch::collector {
namespace {

struct TypeRow {
  const char* type;
  std::int64_t sum_us;
  double percentage;
};

void expect_types(const HtaKernelBreakdown& k, const std::vector<TypeRow>& expected) {
  ASSERT_EQ(k.types.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(k.types[i].kernel_type, expected[i].type) << i;
    EXPECT_EQ(k.types[i].sum_us, expected[i].sum_us) << i;
    EXPECT_DOUBLE_EQ(k.types[i].percentage, expected[i].percentage) << i;
  }
}

struct KernelRow {
  const char* name_prefix;
  double sum, max, min, stddev, mean;
  const char* type;
  std::int64_t rank;
};

void expect_kernels(const HtaKernelBreakdown& k, const std::vector<KernelRow>& expected) {
  ASSERT_GE(k.kernels.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const HtaKernelStat& got = k.kernels[i];
    const KernelRow& want = expected[i];
    EXPECT_EQ(got.name.rfind(want.name_prefix, 0), 0u) << i << ": " << got.name;
    EXPECT_DOUBLE_EQ(got.sum_us, want.sum) << i;
    EXPECT_DOUBLE_EQ(got.max_us, want.max) << i;
    EXPECT_DOUBLE_EQ(got.min_us, want.min) << i;
    EXPECT_NEAR(got.stddev, want.stddev, 1e-6) << i;
    EXPECT_NEAR(got.mean_us, want.mean, 1e-6) << i;
    EXPECT_EQ(got.kernel_type, want.type) << i;
    EXPECT_EQ(got.rank, want.rank) << i;
  }
}

TEST(HtaKernelBreakdown, ReproducesHtaOnTheTwoRankNcclTrace) {
  const HtaBreakdown b = hta_two_rank();
  expect_types(b.kernels, {{"COMMUNICATION", 305584, 55.5},
                           {"COMPUTATION", 185023, 33.6},
                           {"COMPUTATION overlapping COMMUNICATION", 56747, 10.3},
                           {"MEMORY", 2288, 0.4},
                           {"COMMUNICATION overlapping MEMORY", 1011, 0.2},
                           {"COMPUTATION overlapping MEMORY", 18, 0.0},
                           {"COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 12, 0.0}});
  // HTA's reference lists the first 15 rows of the table.
  const char* kComp = "COMPUTATION";
  expect_kernels(
      b.kernels,
      {{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(", 195327, 62783, 11727, 19143.608027, 39065.4,
        "COMMUNICATION", 0},
       {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(", 168027, 57924, 8370, 20173.158449, 33605.4,
        "COMMUNICATION", 1},
       {"ampere_sgemm_128x64_nn", 1956, 1956, 1956, 0, 1956, kComp, 1},
       {"others", 59998, 1992, 4, 503.406933, 327.857923, kComp, 0},
       {"others", 52412, 1917, 5, 472.120640, 304.720930, kComp, 1},
       {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<", 2116, 2116, 2116, 0, 2116,
        kComp, 0},
       {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<", 2116, 2116, 2116, 0, 2116,
        kComp, 1},
       {"void cub::DeviceRadixSortOnesweepKernel<", 6172, 6172, 6172, 0, 6172, kComp, 1},
       {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>", 3159, 3159,
        3159, 0, 3159, kComp, 0},
       {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>", 2247, 2247,
        2247, 0, 2247, kComp, 1},
       {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x3_tn_align1>", 2092, 2092,
        2092, 0, 2092, kComp, 0},
       {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<", 1954, 1954,
        1954, 0, 1954, kComp, 1},
       {"void fbgemm_gpu::permute_2D_data_kernel<", 2081, 2081, 2081, 0, 2081, kComp, 0},
       {"void fbgemm_gpu::permute_2D_data_kernel<", 2391, 2391, 2391, 0, 2391, kComp, 1},
       {"void permute_pooled_embs_kernel<float>(", 4423, 4423, 4423, 0, 4423, kComp, 0}});
}

TEST(HtaKernelBreakdown, ReproducesHtaOnTheNanosecondResolutionTrace) {
  const HtaBreakdown b = hta_ns_resolution();
  expect_types(b.kernels, {{"COMPUTATION", 372150, 99.4}, {"MEMORY", 2371, 0.6}});
  const char* kComp = "COMPUTATION";
  ASSERT_EQ(b.kernels.kernels.size(), 13u);
  expect_kernels(b.kernels,
                 {{"cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", 16738, 16738, 16738, 0,
                   16738, kComp, 0},
                  {"cudnn_infer_volta_scudnn_128x64_stridedB_interior_nn_v1", 13044, 13044, 13044,
                   0, 13044, kComp, 0},
                  {"others", 191567, 12758, 5, 3475.046167, 2859.208955, kComp, 0},
                  {"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<",
                   18273, 18273, 18273, 0, 18273, kComp, 0},
                  {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<",
                   20956, 20956, 20956, 0, 20956, kComp, 0},
                  {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128,", 20101, 20101,
                   20101, 0, 20101, kComp, 0},
                  {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32,", 19271, 19271,
                   19271, 0, 19271, kComp, 0},
                  {"void cudnn::detail::dgrad_engine<", 18901, 18901, 18901, 0, 18901, kComp, 0},
                  {"volta_sgemm_32x128_tn", 17086, 17086, 17086, 0, 17086, kComp, 0},
                  {"volta_sgemm_64x64_nt", 18073, 18073, 18073, 0, 18073, kComp, 0},
                  {"volta_sgemm_64x64_tn", 18140, 18140, 18140, 0, 18140, kComp, 0},
                  {"Memcpy DtoD (Device -> Device)", 1985, 27, 0, 3.491159, 1.550781, "MEMORY", 0},
                  {"Memset (Device)", 386, 15, 0, 3.708453, 3.327586, "MEMORY", 0}});
}

// "others" collects the kernels past the top ten and those past 80 % of the
// running time, per rank and type.
TEST(HtaKernelBreakdown, FoldsTheTailIntoOthers) {
  std::string events = R"({"traceEvents": [)";
  for (int i = 0; i < 12; ++i) {
    // Kernel k<i> runs 100 - i µs, so they rank in name order.
    const std::string c = std::to_string(i + 1);
    const std::string ts = std::to_string(i * 200);
    events += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
              ts + R"(,"dur":1,"args":{"correlation":)" + c + "}},";
    events += R"({"ph":"X","cat":"kernel","name":"k)" + std::string(1, static_cast<char>('a' + i)) +
              R"(","pid":0,"tid":7,"ts":)" + std::to_string(i * 200 + 10) + R"(,"dur":)" +
              std::to_string(100 - i) + R"(,"args":{"stream":7,"correlation":)" + c + "}}" +
              (i == 11 ? "" : ",");
  }
  events += "]}";
  testing::TempDir dir;
  const HtaBreakdown b = hta_breakdown_of({dir.write("tail.json", events)});
  // Sums 100..89: the running sums of the 10th to 12th kernels (955, 1045,
  // 1134) pass their 80 % quantile (936.8), so those three become "others".
  ASSERT_EQ(b.kernels.kernels.size(), 10u);
  EXPECT_EQ(b.kernels.kernels[0].name, "ka");
  EXPECT_EQ(b.kernels.kernels[8].name, "ki");
  const HtaKernelStat& others = b.kernels.kernels[9];
  EXPECT_EQ(others.name, "others");
  EXPECT_DOUBLE_EQ(others.sum_us, 91 + 90 + 89);
  EXPECT_DOUBLE_EQ(others.max_us, 91);
  EXPECT_DOUBLE_EQ(others.min_us, 89);
  EXPECT_DOUBLE_EQ(others.mean_us, 90);
  EXPECT_DOUBLE_EQ(others.stddev, 1);
}

}  // namespace
}  // namespace stallwatch::collector
