// SPDX-License-Identifier: MIT
#pragma once

// Event.flags bits past the schema's EventFlags enum (schema/stallwatch.fbs),
// shared by the agent and the collector.

#include <cstdint>

namespace stallwatch::wire {

// A Complete whose `value` counts: the bytes a read or write call moved (0
// for a failed call), with the call's file id (the interned name an agent
// marks under cat `posix_file`) in `region_id`. libstallwatch_posix.so sends
// every call it times whole this way, one event instead of a Begin and an
// End; a receiver that does not know the bit sees a plain Complete.
inline constexpr std::uint8_t kEventFlagCompleteValue = 2;

// A Complete whose `region_id` is CUDA's correlation id (CUPTI's, per
// process): a runtime call that launched device work (cat `cuda_runtime`,
// named after the call, on the calling thread) and the work it launched (cat
// `gpu`, on the device lane) carry the same one. The CUPTI source sends both
// this way (docs/api.md, "Kernel launches"). A receiver that does not know the
// bit sees a plain Complete (a Complete's region_id means nothing without a
// flag), and cat `cuda_runtime` matches none of the default class rules.
inline constexpr std::uint8_t kEventFlagCorrelation = 4;

}  // namespace stallwatch::wire
