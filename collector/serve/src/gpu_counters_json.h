// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>
#include <vector>

#include "engine/snapshot.h"
#include "serve/json_writer.h"

namespace stallwatch::collector {

// Writes a rank row's `gpu_counters` value (docs/api.md): one object per
// device with each NVML counter's latest sample and its mean per window, and
// how old the newest sample is relative to the rank's watermark (both on the
// agent's clock). An empty array when the rank reports no NVML counters.
// `window_names` names the rank's windows, parallel to RankSnapshot::windows.
void write_gpu_counters(JsonWriter& w, const RankSnapshot& rank,
                        const std::vector<std::string_view>& window_names);

}  // namespace stallwatch::collector
