// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "engine/snapshot.h"
#include "report_rows.h"

namespace stallwatch::collector {

// `stallwatch analyze`'s top files by I/O time: each rank's files over the
// whole run as the engine's total lists them (docs/api.md, "Top files by
// I/O time"), from the posix_file marks the trace's calls were replayed with.

// Every rank's whole-run top files, the text and HTML reports' cells: one row
// per file kept by name, then one "other files" row for the rank's calls on
// the rest (when there were any): job/rank, file, I/O s, read bytes, written
// bytes, calls. No rows when no rank has a file.
ReportRows top_files_rows(const Snapshot& snap);
// The text section (nothing when no rank has a file).
void write_top_files_text(const Snapshot& snap, std::ostream& out);
// A rank's whole-run top files: {"files": [{path, io_seconds, read_bytes,
// write_bytes, ops}], "other": {...}}; null when the engine kept none.
nlohmann::json top_files_json(const RankSnapshot& rank);

}  // namespace stallwatch::collector
