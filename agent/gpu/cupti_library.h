// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

#include "cupti_abi.h"

namespace stallwatch::agent {

// libcupti, opened with dlopen at run time: the agent has no link-time CUDA
// dependency. Which one:
//   1. STALLWATCH_CUPTI_PATH: that file and nothing else;
//   2. a libcupti already mapped into the process (PyTorch's profiler links
//      one; a second CUPTI in the same process would fight the first);
//   3. otherwise the one that matches the CUDA in the process: the major
//      version of a CUDA runtime already mapped (libcudart.so.N), else the
//      newest the driver supports (cuDriverGetVersion, which does not
//      initialize CUDA). Candidates are libcupti.so.13, .12, .11.x, .10.x and
//      libcupti.so on the loader's path, then the same names under
//      $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (extras/CUPTI/lib64, lib64,
//      lib); each is opened and asked its API version (cuptiGetVersion only),
//      one built for a newer CUDA than the driver's is passed over, and one
//      matching the runtime wins over the rest.
// `reason` says which was taken and why (and what was passed over).
// A library in use is never closed: CUPTI keeps threads and calls back.
// Plain function table; load() is called under GpuManager's lock.
struct CuptiLibrary {
  cupti::GetVersionFn get_version = nullptr;
  cupti::SubscribeFn subscribe = nullptr;
  cupti::UnsubscribeFn unsubscribe = nullptr;
  cupti::ActivityEnableFn activity_enable = nullptr;
  cupti::ActivityDisableFn activity_disable = nullptr;
  cupti::RegisterCallbacksFn register_callbacks = nullptr;
  cupti::FlushAllFn flush_all = nullptr;
  cupti::GetNextRecordFn get_next_record = nullptr;
  cupti::GetNumDroppedRecordsFn get_num_dropped_records = nullptr;
  cupti::GetTimestampFn get_timestamp = nullptr;
  cupti::GetResultStringFn get_result_string = nullptr;  // optional
  // Optional: per-call switches of the RUNTIME and DRIVER kinds.
  cupti::ActivityEnableApiFn enable_runtime_api = nullptr;
  cupti::ActivityEnableApiFn enable_driver_api = nullptr;
  std::string path;
  std::string reason;
  std::uint32_t api_version = 0;

  // Finds, opens and resolves libcupti. False with `why` set ("libcupti.so not
  // found", "... lacks cuptiActivityFlushAll") when it cannot.
  static bool load(CuptiLibrary& out, std::string& why) noexcept;

  // "CUPTI_ERROR_NOT_INITIALIZED" or "CUPTI error 15".
  std::string describe(cupti::Result result) const;
};

// The CUDA major version a CUPTI_API_VERSION belongs to (cupti_version.h:
// v10-11 CUDA 9, v12 CUDA 10, v13-18 CUDA 11, v19-99 CUDA 12, then
// major * 10000 + minor from CUDA 13); 0 for values it does not know.
int cupti_cuda_major(std::uint32_t api_version) noexcept;

// The major version in a CUDA library's file name ("libcudart.so.12.4.127"
// -> 12, "libcupti.so.11.8" -> 11); 0 when it has none.
int soname_major(const std::string& file, const char* stem) noexcept;

}  // namespace stallwatch::agent
