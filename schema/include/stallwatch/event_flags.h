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

}  // namespace stallwatch::wire
