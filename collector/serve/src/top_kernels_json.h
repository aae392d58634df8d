// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>
#include <vector>

#include "engine/snapshot.h"
#include "serve/json_writer.h"

namespace stallwatch::collector {

// Writes a rank row's `top_kernels` value (docs/api.md, "Top kernels by
// device time"): per configured window, named by `window_names` (parallel to
// RankSnapshot::top_kernels), its kernels with the most device time, most
// first, and the rest summed in `other`; `{}` for a rank without recorded
// device work in any window.
void write_top_kernels(JsonWriter& w, const RankSnapshot& rank,
                       const std::vector<std::string_view>& window_names);

}  // namespace stallwatch::collector
