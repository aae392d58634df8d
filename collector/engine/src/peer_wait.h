// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/comm_call.h"

namespace stallwatch::collector::detail {

using collector::CommCall;

// The COMM calls of one rank of a job, and its host's clock offset
// (collector_time() = t - offset).
struct RankCalls {
  std::vector<CommCall> calls;
  std::int64_t clock_offset_ns = 0;
};

struct WaitInterval {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  // The index (in the input) of the rank whose late arrival it waited for;
  // of the later collective where two merged.
  std::size_t waiting_for = 0;
};

// The collective whose latest arrival was this rank's call starting at
// `start_ns` (its clock), and the waiting it caused: the other ranks' wait
// intervals in it, summed.
struct Blame {
  std::int64_t start_ns = 0;
  std::int64_t cost_ns = 0;
};

struct PeerWaits {
  std::vector<std::vector<WaitInterval>> waits;  // per rank: sorted, merged, disjoint
  std::vector<std::vector<Blame>> blame;         // per rank, in start order
};

// Waiting for peers (docs/api.md, "peer_wait_seconds"): the calls with the
// same (step, ordinal) on every rank that has calls are one collective; it
// cannot finish before its latest arrival A (the latest start on the
// collector's clock), so each rank's part of its call before A, [start,
// min(end, A)), is waiting for peers. Returns per rank (input order) those
// intervals on the rank's own clock, sorted, merged and disjoint, and the
// waiting each collective caused, blamed on its latest arrival (the first
// such rank on a tie). A key missing on a rank with calls is no collective
// and counts nowhere. Pure.
PeerWaits peer_wait_intervals(std::span<const RankCalls> ranks);

// Length of the union `waits` (sorted, disjoint) within [from, to).
std::int64_t overlap_ns(std::span<const WaitInterval> waits, std::int64_t from, std::int64_t to);

}  // namespace stallwatch::collector::detail
