// SPDX-License-Identifier: MIT
#pragma once

// The head the tree_report_fuzz target runs, and the nodes its seeds come
// from, share these windows (a head refuses reports of other windows).

#include <cstdint>
#include <vector>

namespace stallwatch::fuzz {

inline const std::vector<std::int64_t> kWindowsNs = {2'000'000'000, 5'000'000'000};
// The head's clock at the first frame; the seeds' nodes are 3 ms ahead.
inline constexpr std::int64_t kHeadStartNs = 1'700'000'000'000'000'000;

}  // namespace stallwatch::fuzz
