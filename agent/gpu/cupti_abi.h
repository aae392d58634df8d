// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

// The few CUPTI declarations the CUPTI source needs, declared here rather than
// taken from <cupti_activity.h>, for two reasons:
//  - CUDA headers are optional at build time (CI machines have none), yet the
//    CUPTI source must build everywhere so that its record parsing and its
//    dlopen path are tested everywhere (against a fake libcupti);
//  - activity records arrive in the layout of the libcupti loaded at run
//    time, not of the headers compiled against (CONCURRENT_KERNEL records are
//    CUpti_ActivityKernel4 with CUDA 9 ... CUpti_ActivityKernel10 with CUDA
//    13), so the parser reads only the prefix every one of those shares.
// cupti_abi_check.cc static_asserts each declaration here against the real
// headers whenever they are on the include path (STALLWATCH_CUDA_INCLUDE_DIR).
namespace stallwatch::agent::cupti {

using Result = int;  // CUptiResult
inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorMaxLimitReached = 12;  // also "no more records" in a buffer
inline constexpr Result kErrorNotInitialized = 15;
inline constexpr Result kErrorInsufficientPrivileges = 35;
inline constexpr Result kErrorMultipleSubscribers = 39;

using ActivityKind = int;  // CUpti_ActivityKind (an int-sized enum)
inline constexpr ActivityKind kActivityMemcpy = 1;
inline constexpr ActivityKind kActivityMemset = 2;
inline constexpr ActivityKind kActivityKernel = 3;  // serializing: never enabled here
inline constexpr ActivityKind kActivityDriver = 4;
inline constexpr ActivityKind kActivityRuntime = 5;
inline constexpr ActivityKind kActivityConcurrentKernel = 10;

inline constexpr std::uint32_t kFlushForced = 1;  // CUPTI_ACTIVITY_FLAG_FLUSH_FORCED

// CUPTI_API_VERSION of CUDA 9.0, the first whose kernel records
// (CUpti_ActivityKernel4) have the prefix below.
inline constexpr std::uint32_t kMinApiVersion = 10;

// Record prefixes, for offsetof only: records are read with memcpy, never
// through these types. Natural alignment gives CUPTI's packed offsets here.
struct KernelPrefix {
  std::int32_t kind;
  std::uint8_t cache_config;
  std::uint8_t shared_memory_config;
  std::uint16_t registers_per_thread;
  std::int32_t partitioned_cache_requested;
  std::int32_t partitioned_cache_executed;
  std::uint64_t start;
  std::uint64_t end;
  std::uint64_t completed;
  std::uint32_t device_id;
  std::uint32_t context_id;
  std::uint32_t stream_id;
  std::int32_t grid[3];
  std::int32_t block[3];
  std::int32_t static_shared_memory;
  std::int32_t dynamic_shared_memory;
  std::uint32_t local_memory_per_thread;
  std::uint32_t local_memory_total;
  std::uint32_t correlation_id;
  std::int64_t grid_id;
  const char* name;
};

struct MemcpyPrefix {
  std::int32_t kind;
  std::uint8_t copy_kind;
  std::uint8_t src_kind;
  std::uint8_t dst_kind;
  std::uint8_t flags;
  std::uint64_t bytes;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t device_id;
  std::uint32_t context_id;
  std::uint32_t stream_id;
  std::uint32_t correlation_id;
};

struct MemsetPrefix {
  std::int32_t kind;
  std::uint32_t value;
  std::uint64_t bytes;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t device_id;
  std::uint32_t context_id;
  std::uint32_t stream_id;
  std::uint32_t correlation_id;
};

// CUpti_ActivityAPI (RUNTIME and DRIVER records): one layout in every
// CUPTI release.
struct ApiPrefix {
  std::int32_t kind;
  std::uint32_t cbid;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t process_id;
  std::uint32_t thread_id;
  std::uint32_t correlation_id;
  std::uint32_t return_value;
};

// CUpti_runtime_api_trace_cbid values of the runtime calls that launch
// device work and that HTA counts as launches (cudaLaunchKernel,
// cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync), with their
// per-thread-default-stream (_ptsz) twins. CUDA 13 records a kernel launched
// with <<<...>>> as __cudaLaunchKernel.
inline constexpr std::uint32_t kCbidMemcpyAsync = 41;
inline constexpr std::uint32_t kCbidMemsetAsync = 51;
inline constexpr std::uint32_t kCbidLaunchKernel = 211;
inline constexpr std::uint32_t kCbidLaunchKernelPtsz = 214;
inline constexpr std::uint32_t kCbidMemcpyAsyncPtsz = 225;
inline constexpr std::uint32_t kCbidMemsetAsyncPtsz = 235;
inline constexpr std::uint32_t kCbidLaunchKernelExC = 430;
inline constexpr std::uint32_t kCbidLaunchKernelExCPtsz = 431;
inline constexpr std::uint32_t kCbidLaunchKernelInternal = 505;  // __cudaLaunchKernel
inline constexpr std::uint32_t kCbidLaunchKernelInternalPtsz = 506;

// CUpti_driver_api_trace_cbid values of the driver calls that launch kernels
// (how Triton and other JIT compilers launch): cuLaunchKernel and
// cuLaunchKernelEx, with their _ptsz twins.
inline constexpr std::uint32_t kCbidCuLaunchKernel = 307;
inline constexpr std::uint32_t kCbidCuLaunchKernelPtsz = 442;
inline constexpr std::uint32_t kCbidCuLaunchKernelEx = 652;
inline constexpr std::uint32_t kCbidCuLaunchKernelExPtsz = 653;

// Callback ids of either API lie below this bound in every CUPTI so far
// (CUDA 13.0: 523 runtime, 807 driver); the API filter switches off each id
// below it that is not a launch call.
inline constexpr std::uint32_t kApiCbidLimit = 1024;

// CUpti_ActivityMemcpyKind values named in event names.
inline constexpr std::uint8_t kMemcpyHtoD = 1;
inline constexpr std::uint8_t kMemcpyPtoP = 10;

using SubscriberHandle = void*;
using CallbackFunc = void (*)(void* userdata, int domain, std::uint32_t cbid, const void* data);
using BufferRequestedFunc = void (*)(std::uint8_t** buffer, std::size_t* size,
                                     std::size_t* max_records);
using BufferCompletedFunc = void (*)(void* context, std::uint32_t stream_id, std::uint8_t* buffer,
                                     std::size_t size, std::size_t valid_size);

using GetVersionFn = Result (*)(std::uint32_t* version);
using GetResultStringFn = Result (*)(Result result, const char** text);
using SubscribeFn = Result (*)(SubscriberHandle* subscriber, CallbackFunc callback, void* userdata);
using UnsubscribeFn = Result (*)(SubscriberHandle subscriber);
using ActivityEnableFn = Result (*)(ActivityKind kind);
using ActivityDisableFn = Result (*)(ActivityKind kind);
using RegisterCallbacksFn = Result (*)(BufferRequestedFunc requested,
                                       BufferCompletedFunc completed);
using FlushAllFn = Result (*)(std::uint32_t flag);
using GetNextRecordFn = Result (*)(std::uint8_t* buffer, std::size_t valid_size, void** record);
using GetNumDroppedRecordsFn = Result (*)(void* context, std::uint32_t stream_id,
                                          std::size_t* dropped);
using GetTimestampFn = Result (*)(std::uint64_t* timestamp);
// cuptiActivityEnableRuntimeApi / cuptiActivityEnableDriverApi (CUDA 12.x+).
using ActivityEnableApiFn = Result (*)(std::uint32_t cbid, std::uint8_t enable);

}  // namespace stallwatch::agent::cupti
