// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {

// Records a Complete event from the calling thread's buffer as if thread
// (or lane) `tid` had recorded it, with the wire `region_id` and `flags`
// given: how the CUPTI source sends records it received for other threads
// (a runtime call's thread, a device lane) with their correlation ids. Times
// are Unix epoch ns. The sw_complete status codes; any thread.
int record_complete_for(std::uint32_t tid, sw_name_t cat, sw_name_t name, std::int64_t start_ns,
                        std::int64_t dur_ns, std::uint32_t region_id, std::uint8_t flags) noexcept;

}  // namespace stallwatch::agent
