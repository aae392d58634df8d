#pragma once

#include <string>

#include "cupti_abi.h"

namespace stallwatch::agent {

// libcupti, opened with dlopen at run time: the agent has no link-time CUDA
// dependency. Search order:
//   1. STALLWATCH_CUPTI_PATH: that file and nothing else;
//   2. a libcupti already mapped into the process (PyTorch's profiler links
//      one; a second CUPTI in the same process would fight the first);
//   3. libcupti.so and its versioned names on the loader's path
//      (LD_LIBRARY_PATH, ldconfig, the executable's RUNPATH);
//   4. $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, under extras/CUPTI/lib64,
//      lib64 and lib.
// A loaded library is never closed: CUPTI keeps threads and calls back.
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
  std::string path;

  // Finds, opens and resolves libcupti. False with `why` set ("libcupti.so not
  // found", "... lacks cuptiActivityFlushAll") when it cannot.
  static bool load(CuptiLibrary& out, std::string& why) noexcept;

  // "CUPTI_ERROR_NOT_INITIALIZED" or "CUPTI error 15".
  std::string describe(cupti::Result result) const;
};

}  // namespace stallwatch::agent
