// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace stallwatch::collector {

// HTA's kernel types (hta/utils/utils.py, get_kernel_type), decided by the
// device event's name alone, the same rules for CUDA, ROCm and MTIA traces:
//  - communication: the name starts with "nccl" and has "Kernel" after it
//    (NCCL's ncclKernel_* and ncclDevKernel_*, and RCCL's, which keep the
//    NCCL names on ROCm);
//  - memory: the name starts with "Memcpy", "Memset" (CUDA and ROCm copies
//    and sets) or "dma" (MTIA's DMA transfers);
//  - other: neither of those, but the name contains "Memcpy" or "Sync"
//    (e.g. "Event Sync", "Context Sync");
//  - computation: everything else.
// Case matters, as in HTA's regular expressions.
enum class HtaKernelType : std::uint8_t { kCommunication, kMemory, kComputation, kOther };

HtaKernelType hta_kernel_type(std::string_view name);

// "COMMUNICATION", "MEMORY", "COMPUTATION" or "OTHER", HTA's spelling.
std::string_view hta_kernel_type_name(HtaKernelType type);
// Whether HTA counts a host event of this name as a kernel or memory launch:
// CUDA runtime and driver launches, memcpy/memset, and their ROCm and MTIA
// counterparts (HTA's TraceSymbolTable.get_runtime_launch_events_mask).
bool is_hta_launch_name(std::string_view name);

}  // namespace stallwatch::collector
