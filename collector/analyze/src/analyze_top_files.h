// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "engine/snapshot.h"

namespace stallwatch::collector {

// `stallwatch analyze`'s top files by I/O time: each rank's files over the
// whole run as the engine's total lists them (docs/api.md, "Top files by
// I/O time"), from the posix_file marks the trace's calls were replayed with.

// The text section (nothing when no rank has a file).
void write_top_files_text(const Snapshot& snap, std::ostream& out);
// A rank's whole-run top files: {"files": [{path, io_seconds, read_bytes,
// write_bytes, ops}], "other": {...}}; null when the engine kept none.
nlohmann::json top_files_json(const RankSnapshot& rank);

}  // namespace stallwatch::collector
