// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <string>

#include "traces/read_stats.h"
#include "traces/trace_event.h"

namespace stallwatch::collector {

enum class TraceFormat : std::uint8_t { kDftracer = 0, kKineto = 1 };

// What a reader learned about the process and rank that wrote a file. Filled
// while reading; most of it is known after the first few records.
struct TraceFileInfo {
  std::string path;
  TraceFormat format = TraceFormat::kDftracer;
  std::int64_t rank = -1;  // from the file name or distributedInfo.rank
  std::int64_t world_size = -1;
  std::int64_t pid = -1;          // first pid written
  std::int64_t ppid = -1;         // dftracer "start" record args.ppid
  std::string host;               // dftracer HH record, Kineto host_name
  std::int64_t base_time_ns = 0;  // Kineto baseTimeNanoseconds (0 when absent)
  // Kineto: some element has a fractional or missing "ts" (known at the end of
  // the file). HTA then rounds every event: start up, end down.
  bool fractional_ts = false;
};

// A streaming reader of one trace file. Memory is bounded by its buffers, not
// by the file size. Malformed records are counted in stats() (with file and
// line) and skipped; only an unreadable file ends the stream with error().
//
// Single-threaded; the TraceEvent's strings are valid until the next call.
class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // Next event; false at the end of the file or on a fatal error.
  virtual bool next(TraceEvent& event) = 0;
  virtual const TraceFileInfo& info() const = 0;
  const ReadStats& stats() const { return stats_; }
  const std::string& error() const { return error_; }

 protected:
  ReadStats stats_;
  std::string error_;
};

// Picks the format from the name and the first bytes; nullptr with `error`
// when the file cannot be opened or read.
std::unique_ptr<TraceReader> open_trace_reader(const std::string& path, std::string& error);

// Rank from a dftracer-style name: "trace-3-of-8.pfw" -> 3 (world 8); -1 if none.
std::int64_t rank_from_file_name(const std::string& path, std::int64_t* world_size = nullptr);

}  // namespace stallwatch::collector
