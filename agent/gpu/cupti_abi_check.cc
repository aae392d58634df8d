// SPDX-License-Identifier: MIT
// Compile-time proof that cupti_abi.h agrees with the CUPTI headers whenever
// they are on the include path: every constant, and the prefix offsets of
// each record version the parser may meet. Without the headers this file
// checks nothing (see cupti_abi.h for why the agent does not need them).

#include "cupti_abi.h"

#if __has_include(<cupti_activity.h>)

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_result.h>
#include <cupti_runtime_cbid.h>
#include <cupti_version.h>

#include <cstddef>
#include <type_traits>

namespace stallwatch::agent::cupti {
namespace {

static_assert(sizeof(CUptiResult) == sizeof(Result));
static_assert(CUPTI_SUCCESS == kSuccess);
static_assert(CUPTI_ERROR_MAX_LIMIT_REACHED == kErrorMaxLimitReached);
static_assert(CUPTI_ERROR_NOT_INITIALIZED == kErrorNotInitialized);
static_assert(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES == kErrorInsufficientPrivileges);
static_assert(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED == kErrorMultipleSubscribers);

static_assert(sizeof(CUpti_ActivityKind) == sizeof(ActivityKind));
static_assert(CUPTI_ACTIVITY_KIND_MEMCPY == kActivityMemcpy);
static_assert(CUPTI_ACTIVITY_KIND_MEMSET == kActivityMemset);
static_assert(CUPTI_ACTIVITY_KIND_KERNEL == kActivityKernel);
static_assert(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL == kActivityConcurrentKernel);
static_assert(CUPTI_ACTIVITY_KIND_RUNTIME == kActivityRuntime);
static_assert(CUPTI_ACTIVITY_KIND_DRIVER == kActivityDriver);
static_assert(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel == kCbidCuLaunchKernel);
static_assert(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz == kCbidCuLaunchKernelPtsz);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 == kCbidMemcpyAsync);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 == kCbidMemsetAsync);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 == kCbidLaunchKernel);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 == kCbidLaunchKernelPtsz);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000 == kCbidMemcpyAsyncPtsz);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000 == kCbidMemsetAsyncPtsz);
#if CUPTI_API_VERSION >= 17
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 == kCbidLaunchKernelExC);
static_assert(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 == kCbidLaunchKernelExCPtsz);
#endif
#if CUPTI_API_VERSION >= 130000
static_assert(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx == kCbidCuLaunchKernelEx);
static_assert(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz == kCbidCuLaunchKernelExPtsz);
static_assert(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 == kCbidLaunchKernelInternal);
static_assert(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ==
              kCbidLaunchKernelInternalPtsz);
#endif
static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= kApiCbidLimit);
static_assert(CUPTI_DRIVER_TRACE_CBID_SIZE <= kApiCbidLimit);
static_assert(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED == kFlushForced);
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == kMemcpyHtoD);
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == kMemcpyPtoP);
static_assert(CUPTI_API_VERSION >= kMinApiVersion);

static_assert(std::is_same_v<CUpti_BuffersCallbackRequestFunc, BufferRequestedFunc>);
static_assert(sizeof(CUpti_SubscriberHandle) == sizeof(SubscriberHandle));
static_assert(sizeof(CUcontext) == sizeof(void*));
static_assert(sizeof(CUpti_CallbackDomain) == sizeof(int));
static_assert(sizeof(CUpti_CallbackId) == sizeof(std::uint32_t));

template <typename Record>
constexpr bool kernel_prefix_matches() {
  return offsetof(Record, kind) == offsetof(KernelPrefix, kind) &&
         offsetof(Record, start) == offsetof(KernelPrefix, start) &&
         offsetof(Record, end) == offsetof(KernelPrefix, end) &&
         offsetof(Record, deviceId) == offsetof(KernelPrefix, device_id) &&
         offsetof(Record, streamId) == offsetof(KernelPrefix, stream_id) &&
         offsetof(Record, correlationId) == offsetof(KernelPrefix, correlation_id) &&
         offsetof(Record, name) == offsetof(KernelPrefix, name);
}

template <typename Record>
constexpr bool memcpy_prefix_matches() {
  return offsetof(Record, copyKind) == offsetof(MemcpyPrefix, copy_kind) &&
         offsetof(Record, start) == offsetof(MemcpyPrefix, start) &&
         offsetof(Record, end) == offsetof(MemcpyPrefix, end) &&
         offsetof(Record, deviceId) == offsetof(MemcpyPrefix, device_id) &&
         offsetof(Record, streamId) == offsetof(MemcpyPrefix, stream_id) &&
         offsetof(Record, correlationId) == offsetof(MemcpyPrefix, correlation_id);
}

template <typename Record>
constexpr bool memset_prefix_matches() {
  return offsetof(Record, start) == offsetof(MemsetPrefix, start) &&
         offsetof(Record, end) == offsetof(MemsetPrefix, end) &&
         offsetof(Record, deviceId) == offsetof(MemsetPrefix, device_id) &&
         offsetof(Record, streamId) == offsetof(MemsetPrefix, stream_id) &&
         offsetof(Record, correlationId) == offsetof(MemsetPrefix, correlation_id);
}

// Runtime API records have had one layout since CUDA 9.0.
static_assert(offsetof(CUpti_ActivityAPI, kind) == offsetof(ApiPrefix, kind));
static_assert(offsetof(CUpti_ActivityAPI, cbid) == offsetof(ApiPrefix, cbid));
static_assert(offsetof(CUpti_ActivityAPI, start) == offsetof(ApiPrefix, start));
static_assert(offsetof(CUpti_ActivityAPI, end) == offsetof(ApiPrefix, end));
static_assert(offsetof(CUpti_ActivityAPI, threadId) == offsetof(ApiPrefix, thread_id));
static_assert(offsetof(CUpti_ActivityAPI, correlationId) == offsetof(ApiPrefix, correlation_id));
static_assert(sizeof(CUpti_ActivityAPI) == sizeof(ApiPrefix));

// The versions a CUDA 9.0+ libcupti delivers. Headers of every CUDA release
// declare the first three; the others are checked with CUDA 13 headers
// (older headers declare only some of them).
static_assert(kernel_prefix_matches<CUpti_ActivityKernel4>());
static_assert(memcpy_prefix_matches<CUpti_ActivityMemcpy>());
static_assert(memset_prefix_matches<CUpti_ActivityMemset>());
#if CUPTI_API_VERSION >= 130000
static_assert(kernel_prefix_matches<CUpti_ActivityKernel5>());
static_assert(kernel_prefix_matches<CUpti_ActivityKernel6>());
static_assert(kernel_prefix_matches<CUpti_ActivityKernel7>());
static_assert(kernel_prefix_matches<CUpti_ActivityKernel8>());
static_assert(kernel_prefix_matches<CUpti_ActivityKernel9>());
static_assert(kernel_prefix_matches<CUpti_ActivityKernel10>());
static_assert(memcpy_prefix_matches<CUpti_ActivityMemcpy3>());
static_assert(memcpy_prefix_matches<CUpti_ActivityMemcpy4>());
static_assert(memcpy_prefix_matches<CUpti_ActivityMemcpy5>());
static_assert(memcpy_prefix_matches<CUpti_ActivityMemcpy6>());
static_assert(memset_prefix_matches<CUpti_ActivityMemset2>());
static_assert(memset_prefix_matches<CUpti_ActivityMemset3>());
static_assert(memset_prefix_matches<CUpti_ActivityMemset4>());
#endif

}  // namespace
}  // namespace stallwatch::agent::cupti

#endif
