// SPDX-License-Identifier: MIT
#pragma once

// The rank table's sort orders (key `s` cycles them). Each order puts the
// ranks a user should look at first on top; ties and missing values keep
// rank order, missing values last. Pure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api_model.h"

namespace stallwatch::tui {

enum class SortKey : std::uint8_t {
  kRank,        // rank id, ascending
  kDataStall,   // data stall ratio, highest first
  kDeviceIdle,  // device idle ratio, highest first
  kSteps,       // steps per second, slowest first (stragglers)
  kVerdict,     // data-starved, io-bound, host-bound, well-overlapped, idle
};

std::string_view sort_label(SortKey key);  // "rank", "data stall ↓", ...
SortKey next_sort(SortKey key);

// The verdict's place in catalog::kVerdicts (problems first): 0 for
// data-starved up to 4 for idle; 5 unknown.
int verdict_rank(std::string_view verdict);

// `ranks` in `key` order, judged on the metrics of `window`.
std::vector<const RankRow*> sorted_ranks(const std::vector<RankRow>& ranks, SortKey key,
                                         const std::string& window);

}  // namespace stallwatch::tui
