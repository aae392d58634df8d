// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>
#include <vector>

#include "engine/snapshot.h"
#include "serve/json_writer.h"

namespace stallwatch::collector {

// Writes a rank row's `top_files` value (docs/api.md, "Top files by I/O
// time"): per configured window, named by `window_names` (parallel to
// RankSnapshot::top_files), its files with the most I/O time, most first,
// and the rest summed in `other`; `{}` for a rank with no file I/O in any
// window.
void write_top_files(JsonWriter& w, const RankSnapshot& rank,
                     const std::vector<std::string_view>& window_names);

}  // namespace stallwatch::collector
