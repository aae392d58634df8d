// SPDX-License-Identifier: MIT
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "dftracer_record.h"
#include "input_file.h"
#include "line_reader.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {

// Reads dftracer traces (.pfw, .pfw.gz), both dialects:
//   - the "["-wrapped one (one JSON object per line, "ph" "X"/"M"/"C"),
//   - the newline-delimited one with an integer "ph" (1 complete, 2 counter,
//     3 aggregated, 4 metadata) and a "type" column.
// "hhash" may be an integer or a hex string. Metadata records are consumed:
// HH names the host; CM records whose value is a µs timestamp become marks
// (e.g. args.name "epoch.start"); FH names a file hash (args.value) with its
// path (args.name), for the POSIX and STDIO calls that give args.fhash rather
// than args.fname (TraceEvent::file). Fork quirk: a forked child keeps its parent's
// pid in "pid" and writes its own pid as "tid"; the child is recognised from
// its `fork` records (ret 0 in the child, ret = child pid in the parent) and
// its events get os_pid = tid.
//
// Single-threaded. Does not classify events (see ClassMapping).
class DftracerReader : public TraceReader {
 public:
  DftracerReader(std::unique_ptr<InputFile> file, TraceFileInfo info);

  bool next(TraceEvent& event) override;
  const TraceFileInfo& info() const override { return info_; }

 private:
  enum class Parsed : std::uint8_t { kEvent, kSkip, kMalformed };
  Parsed parse_line(const Line& line, TraceEvent& event, std::string& problem);
  Parsed finish_metadata(TraceEvent& event, std::string_view meta_name, std::string_view meta_value,
                         bool has_meta_value, std::string& problem);
  void resolve_process(TraceEvent& event, std::int64_t fork_ret, bool is_fork);

  std::unique_ptr<InputFile> file_;
  LineReader lines_;
  simdjson::ondemand::parser parser_;
  DftracerRecord record_;
  TraceFileInfo info_;
  std::uint64_t record_index_ = 0;
  bool done_ = false;
  // Forked children by the pid they were written under.
  std::unordered_map<std::int64_t, std::unordered_set<std::int64_t>> children_;
  // Per (os_pid, mark name) occurrence counters for CM marks.
  std::unordered_map<std::string, std::int64_t> mark_counts_;
  std::string mark_key_;
  // File paths by the text of their hash (FH records), and the key looked up.
  std::unordered_map<std::string, std::string> file_paths_;
  std::string file_key_;
};

}  // namespace stallwatch::collector
