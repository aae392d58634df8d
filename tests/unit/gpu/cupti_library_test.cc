// SPDX-License-Identifier: MIT
#include "cupti_library.h"

#include <gtest/gtest.h>

namespace stallwatch::agent {
namespace {

TEST(CuptiLibrary, ApiVersionsMapToTheirCudaRelease) {
  EXPECT_EQ(cupti_cuda_major(10), 9);
  EXPECT_EQ(cupti_cuda_major(12), 10);
  EXPECT_EQ(cupti_cuda_major(13), 11);
  EXPECT_EQ(cupti_cuda_major(18), 11);
  EXPECT_EQ(cupti_cuda_major(19), 12);
  EXPECT_EQ(cupti_cuda_major(28), 12);
  EXPECT_EQ(cupti_cuda_major(130000), 13);
  EXPECT_EQ(cupti_cuda_major(130001), 13);
  EXPECT_EQ(cupti_cuda_major(140000), 14);
  EXPECT_EQ(cupti_cuda_major(3), 0);
}

TEST(CuptiLibrary, ReadsTheMajorVersionInAFileName) {
  EXPECT_EQ(soname_major("libcudart.so.12", "libcudart.so"), 12);
  EXPECT_EQ(soname_major("libcudart.so.12.4.127", "libcudart.so"), 12);
  EXPECT_EQ(soname_major("libcupti.so.11.8", "libcupti.so"), 11);
  EXPECT_EQ(soname_major("libcudart.so", "libcudart.so"), 0);
  EXPECT_EQ(soname_major("", "libcudart.so"), 0);
  EXPECT_EQ(soname_major("libcupti.so.13", "libcudart.so"), 0);
}

}  // namespace
}  // namespace stallwatch::agent
