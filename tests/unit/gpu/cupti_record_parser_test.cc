// SPDX-License-Identifier: MIT
// CUPTI activity records -> ActivityRecord. Records are built two ways: at
// the byte offsets CUPTI documents for every record version since CUDA 9.0
// (independent of cupti_abi.h), and, when CUDA headers are on the include
// path, from CUPTI's own newest structs.

#include "cupti_record_parser.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#include <cupti_runtime_cbid.h>
#include <cupti_version.h>
#define SW_TEST_HAVE_CUPTI_HEADERS 1
#endif

namespace stallwatch::agent {
namespace {

constexpr std::int32_t kMemcpy = 1, kMemset = 2, kKernel = 3, kDriver = 4, kRuntime = 5,
                       kConcurrentKernel = 10;

// A 256-byte record slot, 8-byte aligned like CUPTI's buffers, filled with
// garbage past the fields a test sets.
struct RecordBytes {
  alignas(8) std::uint8_t bytes[256];

  explicit RecordBytes(std::int32_t kind) {
    std::memset(bytes, 0xAB, sizeof(bytes));
    put(0, kind);
  }
  template <typename T>
  RecordBytes& put(std::size_t offset, T value) {
    std::memcpy(bytes + offset, &value, sizeof(T));
    return *this;
  }
};

// Offsets of the prefix shared by CUpti_ActivityKernel4..10.
RecordBytes kernel(std::uint64_t start, std::uint64_t end, std::uint32_t device,
                   std::uint32_t stream, std::uint32_t correlation, const char* name) {
  RecordBytes r(kConcurrentKernel);
  r.put<std::uint64_t>(16, start).put<std::uint64_t>(24, end).put<std::uint64_t>(32, end);
  r.put<std::uint32_t>(40, device).put<std::uint32_t>(48, stream);
  r.put<std::uint32_t>(92, correlation).put<const char*>(104, name);
  return r;
}

// Offsets of the prefix shared by CUpti_ActivityMemcpy, Memcpy3..6.
RecordBytes memcpy_record(std::uint8_t copy_kind, std::uint64_t start, std::uint64_t end,
                          std::uint32_t device, std::uint32_t stream) {
  RecordBytes r(kMemcpy);
  r.put<std::uint8_t>(4, copy_kind).put<std::uint64_t>(8, 4096);
  r.put<std::uint64_t>(16, start).put<std::uint64_t>(24, end);
  r.put<std::uint32_t>(32, device).put<std::uint32_t>(40, stream).put<std::uint32_t>(44, 77);
  return r;
}

// Offsets of the prefix shared by CUpti_ActivityMemset, Memset2..4.
RecordBytes memset_record(std::uint64_t start, std::uint64_t end, std::uint32_t device,
                          std::uint32_t stream) {
  RecordBytes r(kMemset);
  r.put<std::uint32_t>(4, 0).put<std::uint64_t>(8, 1 << 20);
  r.put<std::uint64_t>(16, start).put<std::uint64_t>(24, end);
  r.put<std::uint32_t>(32, device).put<std::uint32_t>(40, stream).put<std::uint32_t>(44, 78);
  return r;
}

TEST(CuptiRecordParser, ReadsAConcurrentKernel) {
  const RecordBytes r = kernel(1'000'000, 1'250'000, 2, 14, 99, "_Z6matmulPfS_");
  const auto parsed = parse_cupti_record(r.bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, ActivityKind::kKernel);
  EXPECT_EQ(parsed->start, 1'000'000u);
  EXPECT_EQ(parsed->end, 1'250'000u);
  EXPECT_EQ(parsed->device, 2u);
  EXPECT_EQ(parsed->stream, 14u);
  EXPECT_EQ(parsed->correlation, 99u);
  EXPECT_EQ(parsed->name, "_Z6matmulPfS_");
}

TEST(CuptiRecordParser, NamesAKernelWithoutANameKernel) {
  const auto unnamed = parse_cupti_record(kernel(10, 20, 0, 7, 1, nullptr).bytes);
  ASSERT_TRUE(unnamed.has_value());
  EXPECT_EQ(unnamed->name, "kernel");
  const auto empty = parse_cupti_record(kernel(10, 20, 0, 7, 1, "").bytes);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->name, "kernel");
}

TEST(CuptiRecordParser, NamesMemcpysByDirection) {
  const struct {
    std::uint8_t copy_kind;
    const char* name;
  } cases[] = {{1, "memcpy HtoD"},  {2, "memcpy DtoH"}, {8, "memcpy DtoD"}, {9, "memcpy HtoH"},
               {10, "memcpy PtoP"}, {0, "memcpy"},      {200, "memcpy"}};
  for (const auto& c : cases) {
    const auto parsed = parse_cupti_record(memcpy_record(c.copy_kind, 500, 900, 1, 13).bytes);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->kind, ActivityKind::kMemcpy);
    EXPECT_EQ(parsed->name, c.name);
    EXPECT_EQ(parsed->start, 500u);
    EXPECT_EQ(parsed->end, 900u);
    EXPECT_EQ(parsed->device, 1u);
    EXPECT_EQ(parsed->stream, 13u);
    EXPECT_EQ(parsed->correlation, 77u);
  }
}

TEST(CuptiRecordParser, ReadsAMemset) {
  const auto parsed = parse_cupti_record(memset_record(100, 150, 3, 21).bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, ActivityKind::kMemset);
  EXPECT_EQ(parsed->name, "memset");
  EXPECT_EQ(parsed->device, 3u);
  EXPECT_EQ(parsed->stream, 21u);
  EXPECT_EQ(parsed->correlation, 78u);
}

// CUpti_ActivityAPI, one layout since CUDA 9.0.
RecordBytes runtime_call(std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                         std::uint32_t thread, std::uint32_t correlation,
                         std::int32_t kind = kRuntime) {
  RecordBytes r(kind);
  r.put<std::uint32_t>(4, cbid).put<std::uint64_t>(8, start).put<std::uint64_t>(16, end);
  r.put<std::uint32_t>(24, 4321).put<std::uint32_t>(28, thread);
  r.put<std::uint32_t>(32, correlation).put<std::uint32_t>(36, 0);
  return r;
}

TEST(CuptiRecordParser, ReadsLaunchCallsOfTheRuntime) {
  const auto parsed = parse_cupti_record(runtime_call(211, 1'000, 6'000, 777, 99).bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, ActivityKind::kLaunch);
  EXPECT_EQ(parsed->name, "cudaLaunchKernel");
  EXPECT_EQ(parsed->start, 1'000u);
  EXPECT_EQ(parsed->end, 6'000u);
  EXPECT_EQ(parsed->thread, 777u);
  EXPECT_EQ(parsed->correlation, 99u);
  const std::pair<std::uint32_t, std::string_view> names[] = {
      {214, "cudaLaunchKernel"},    {505, "cudaLaunchKernel"},    {506, "cudaLaunchKernel"},
      {430, "cudaLaunchKernelExC"}, {431, "cudaLaunchKernelExC"}, {41, "cudaMemcpyAsync"},
      {225, "cudaMemcpyAsync"},     {51, "cudaMemsetAsync"},      {235, "cudaMemsetAsync"}};
  for (const auto& [cbid, name] : names) {
    const auto call = parse_cupti_record(runtime_call(cbid, 1'000, 2'000, 1, 2).bytes);
    ASSERT_TRUE(call.has_value()) << cbid;
    EXPECT_EQ(call->name, name) << cbid;
  }
  // cudaGetDevice (4) and cudaStreamSynchronize (131) launch nothing.
  EXPECT_FALSE(parse_cupti_record(runtime_call(4, 1'000, 2'000, 1, 2).bytes).has_value());
  EXPECT_FALSE(parse_cupti_record(runtime_call(131, 1'000, 2'000, 1, 2).bytes).has_value());
  EXPECT_FALSE(parse_cupti_record(runtime_call(211, 0, 0, 1, 2).bytes).has_value());
  EXPECT_FALSE(is_device_work_record(runtime_call(211, 1'000, 2'000, 1, 2).bytes))
      << "a launch record that does not parse loses no device time";
}

// DRIVER records share the layout; their cbids are the driver API's.
TEST(CuptiRecordParser, ReadsKernelLaunchesOfTheDriver) {
  const auto parsed = parse_cupti_record(runtime_call(307, 1'000, 4'000, 555, 77, kDriver).bytes);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, ActivityKind::kLaunch);
  EXPECT_EQ(parsed->name, "cuLaunchKernel");
  EXPECT_EQ(parsed->start, 1'000u);
  EXPECT_EQ(parsed->end, 4'000u);
  EXPECT_EQ(parsed->thread, 555u);
  EXPECT_EQ(parsed->correlation, 77u);
  const std::pair<std::uint32_t, std::string_view> names[] = {
      {442, "cuLaunchKernel"}, {652, "cuLaunchKernelEx"}, {653, "cuLaunchKernelEx"}};
  for (const auto& [cbid, name] : names) {
    const auto call = parse_cupti_record(runtime_call(cbid, 1'000, 2'000, 1, 2, kDriver).bytes);
    ASSERT_TRUE(call.has_value()) << cbid;
    EXPECT_EQ(call->name, name) << cbid;
  }
  // Other driver calls launch no kernel, and a cbid is read in its own
  // domain: 211 (cudaLaunchKernel in a RUNTIME record) is another call in a
  // DRIVER one, and 307 (cuLaunchKernel) another in a RUNTIME one.
  EXPECT_FALSE(parse_cupti_record(runtime_call(211, 1'000, 2'000, 1, 2, kDriver).bytes));
  EXPECT_FALSE(parse_cupti_record(runtime_call(306, 1'000, 2'000, 1, 2, kDriver).bytes))
      << "cuMemcpyAsync is not a kernel launch";
  EXPECT_FALSE(parse_cupti_record(runtime_call(307, 1'000, 2'000, 1, 2, kRuntime).bytes))
      << "307 in a RUNTIME record is no launch";
  EXPECT_FALSE(parse_cupti_record(runtime_call(307, 0, 0, 1, 2, kDriver).bytes));
  EXPECT_FALSE(is_device_work_record(runtime_call(307, 1'000, 2'000, 1, 2, kDriver).bytes));
}

TEST(CuptiRecordParser, RefusesOtherKindsAndUntimedRecords) {
  EXPECT_FALSE(parse_cupti_record(RecordBytes(kRuntime).bytes).has_value());
  RecordBytes serializing = kernel(10, 20, 0, 7, 1, "k");
  serializing.put<std::int32_t>(0, kKernel);
  EXPECT_FALSE(parse_cupti_record(serializing.bytes).has_value())
      << "the serializing KERNEL kind is never a device-busy source";
  EXPECT_FALSE(parse_cupti_record(kernel(0, 0, 0, 7, 1, "k").bytes).has_value());
  EXPECT_FALSE(parse_cupti_record(kernel(30, 20, 0, 7, 1, "k").bytes).has_value());
  EXPECT_FALSE(parse_cupti_record(nullptr).has_value());
  EXPECT_TRUE(parse_cupti_record(kernel(20, 20, 0, 7, 1, "k").bytes).has_value())
      << "a zero-length record is still a record";
}

#if defined(SW_TEST_HAVE_CUPTI_HEADERS) && CUPTI_API_VERSION >= 130000

TEST(CuptiRecordParser, ReadsCuptiNewestStructs) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0x5A, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 111;
  k.end = 222;
  k.deviceId = 1;
  k.streamId = 31;
  k.correlationId = 41;
  k.name = "relu_kernel";
  auto parsed = parse_cupti_record(reinterpret_cast<const std::uint8_t*>(&k));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->start, 111u);
  EXPECT_EQ(parsed->end, 222u);
  EXPECT_EQ(parsed->device, 1u);
  EXPECT_EQ(parsed->stream, 31u);
  EXPECT_EQ(parsed->correlation, 41u);
  EXPECT_EQ(parsed->name, "relu_kernel");

  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0x5A, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.start = 333;
  m.end = 444;
  m.deviceId = 0;
  m.streamId = 9;
  m.correlationId = 51;
  parsed = parse_cupti_record(reinterpret_cast<const std::uint8_t*>(&m));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->name, "memcpy DtoH");
  EXPECT_EQ(parsed->stream, 9u);
  EXPECT_EQ(parsed->correlation, 51u);

  CUpti_ActivityMemset4 s;
  std::memset(&s, 0x5A, sizeof(s));
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.start = 555;
  s.end = 666;
  s.deviceId = 2;
  s.streamId = 10;
  s.correlationId = 61;
  parsed = parse_cupti_record(reinterpret_cast<const std::uint8_t*>(&s));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->name, "memset");
  EXPECT_EQ(parsed->start, 555u);
  EXPECT_EQ(parsed->device, 2u);

  CUpti_ActivityAPI call;
  std::memset(&call, 0x5A, sizeof(call));
  call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  call.start = 700;
  call.end = 800;
  call.threadId = 1234;
  call.correlationId = 41;
  parsed = parse_cupti_record(reinterpret_cast<const std::uint8_t*>(&call));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, ActivityKind::kLaunch);
  EXPECT_EQ(parsed->name, "cudaLaunchKernel");
  EXPECT_EQ(parsed->start, 700u);
  EXPECT_EQ(parsed->thread, 1234u);
  EXPECT_EQ(parsed->correlation, 41u);
}

#else

TEST(CuptiRecordParser, ReadsCuptiNewestStructs) {
  GTEST_SKIP() << "built without CUDA 13 headers (STALLWATCH_CUDA_INCLUDE_DIR); the "
                  "offset-based records above cover the layout";
}

#endif

}  // namespace
}  // namespace stallwatch::agent
