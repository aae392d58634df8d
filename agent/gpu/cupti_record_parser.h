// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "activity_record.h"

namespace stallwatch::agent {

// Reads one CUPTI activity record, in the layout of any libcupti from CUDA
// 9.0 on (cupti_abi.h), into an ActivityRecord: CONCURRENT_KERNEL, MEMCPY and
// MEMSET records, and RUNTIME and DRIVER records of the calls that launch
// device work (launch_call_name, driver_launch_call_name) as kLaunch; nullopt
// for every other kind or API call and for records CUPTI could not time
// (start and end 0, or end before start). `record` points into a
// CUPTI activity buffer; fields are copied out, never read through a cast.
// A kernel's name views CUPTI's string (valid as long as its module is
// loaded); a kernel without a name is "kernel". Pure; any thread.
std::optional<ActivityRecord> parse_cupti_record(const std::uint8_t* record) noexcept;

// Whether `record` is of a kind parse_cupti_record reads (a kernel, memcpy or
// memset): when such a record does not parse, its device time is lost.
bool is_device_work_record(const std::uint8_t* record) noexcept;

// The name a runtime call that launches device work goes by (its CUDA
// function, as Kineto names it: "cudaLaunchKernel", "cudaMemcpyAsync", ...),
// or empty for a CUpti_runtime_api_trace_cbid of any other call.
std::string_view launch_call_name(std::uint32_t cbid) noexcept;

// The same for a CUpti_driver_api_trace_cbid: "cuLaunchKernel" or
// "cuLaunchKernelEx" (the driver calls Triton and other JITs launch with),
// else empty.
std::string_view driver_launch_call_name(std::uint32_t cbid) noexcept;

// "memcpy HtoD", "memcpy DtoH", ... for a CUpti_ActivityMemcpyKind; "memcpy"
// for kinds it does not know.
std::string_view memcpy_name(std::uint8_t copy_kind) noexcept;

}  // namespace stallwatch::agent
