// SPDX-License-Identifier: MIT
#include "engine/launch_figures.h"

#include <array>

namespace stallwatch::collector {

bool is_launch_call_name(std::string_view name) {
  static constexpr std::array<std::string_view, 28> kNames = {
      "cudaLaunchKernel",
      "cudaLaunchKernelExC",
      "cuLaunchKernel",
      "cuLaunchKernelEx",
      "cudaMemcpyAsync",
      "cudaMemsetAsync",
      "runFunction - job_prep_and_submit_for_execution",
      "hipLaunchKernel",
      "hipExtModuleLaunchKernel",
      "hipMemsetAsync",
      "hipMemcpyAsync",
      "hipMemcpyWithStream",
      "urEnqueueUSMFill",
      "urEnqueueUSMFill2D",
      "urEnqueueUSMMemcpy",
      "urEnqueueUSMMemcpy2D",
      "urEnqueueKernelLaunch",
      "urEnqueueKernelLaunchExp",
      "urEnqueueKernelLaunchCustomExp",
      "urEnqueueKernelLaunchWithArgsExp",
      "urEnqueueCooperativeKernelLaunchExp",
      "urEnqueueMemBufferFill",
      "urEnqueueMemBufferRead",
      "urEnqueueMemBufferWrite",
      "urEnqueueMemBufferCopy",
      "urUSMHostAlloc",
      "urUSMSharedAlloc",
      "urUSMDeviceAlloc",
  };
  for (std::string_view known : kNames) {
    if (name == known) return true;
  }
  return false;
}

}  // namespace stallwatch::collector
