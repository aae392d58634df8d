// SPDX-License-Identifier: MIT
#pragma once

#include <bit>
#include <cstdint>

#include "kineto_element.h"

namespace stallwatch::collector {

// Whether two parses of one element agree on everything the Kineto reader
// takes from it, doubles bit for bit: what the hand-written parser must give
// wherever it takes an element (the fuzz target, the unit tests and the bench
// check it).
inline bool same_kineto_fields(const TraceEvent& a, const KinetoElement& ea, const TraceEvent& b,
                               const KinetoElement& eb) {
  return ea.ph == eb.ph && ea.has_ts == eb.has_ts && ea.has_dur == eb.has_dur && a.name == b.name &&
         a.cat == b.cat && a.pid == b.pid && a.tid == b.tid && a.ts_ns == b.ts_ns &&
         a.dur_ns == b.dur_ns &&
         std::bit_cast<std::uint64_t>(a.ts_us) == std::bit_cast<std::uint64_t>(b.ts_us) &&
         std::bit_cast<std::uint64_t>(a.dur_us) == std::bit_cast<std::uint64_t>(b.dur_us) &&
         a.ts_is_float == b.ts_is_float && a.stream == b.stream && a.correlation == b.correlation &&
         a.external_id == b.external_id;
}

}  // namespace stallwatch::collector
