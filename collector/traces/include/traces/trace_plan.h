// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace stallwatch::collector {

// One input file, after a look at its first records.
struct TraceSource {
  TraceFileInfo info;
  std::int64_t first_ts_ns =
      std::numeric_limits<std::int64_t>::max();  // min start of complete events among them
};

// The files of one rank (a training process and its data-loader workers).
struct RankGroup {
  TraceFormat format = TraceFormat::kDftracer;
  std::int64_t rank = 0;
  std::int64_t main_pid = -1;  // the rank's training process
  std::string host;
  std::vector<std::size_t> sources;  // indexes into TracePlan::sources
};

struct TracePlan {
  std::vector<TraceSource> sources;
  std::vector<RankGroup> ranks;                                         // sorted by (format, rank)
  std::int64_t first_ts_ns = std::numeric_limits<std::int64_t>::max();  // over all sources
  std::vector<std::string> notes;  // decisions worth telling the user (renumbered ranks)
};

// Opens every file, reads its first records and groups files into ranks:
// dftracer ranks come from names like "trace-3-of-8.pfw"; a file without a
// rank in its name joins the rank of its parent process: the file whose pid
// its `start` record's ppid names, or, when it has no `start` record, the
// file that has one for the pid it was written under (a forked data-loader
// worker keeps its parent's pid); the remaining files are ranks in path
// order. Kineto ranks come from distributedInfo.rank, then the file name, then
// by order (a Kineto file is one rank: a second file claiming a taken rank
// gets a free number).
// Returns "" or the message for the first unreadable file.
std::string plan_traces(const std::vector<std::string>& paths, TracePlan& plan);

// Streams the events of one rank, merging its files by event end time (each
// dftracer file is written in end-time order, so the merge is too). Memory:
// one reader per file. Single-threaded; the event is valid until next().
class RankStream {
 public:
  RankStream(const TracePlan& plan, const RankGroup& group);
  ~RankStream();

  // "" or the open error of the first unreadable file.
  std::string open();
  // False at the end, or on a fatal read error (see error()).
  bool next(const TraceEvent*& event, const TraceFileInfo*& file);
  const std::string& error() const { return error_; }
  // Per-file statistics (final once next() returned false).
  std::vector<ReadStats> stats() const;
  // Fractional Kineto timestamps seen (final at the end).
  bool fractional_ts() const;

 private:
  struct Cursor;
  bool advance(std::size_t cursor);

  const TracePlan& plan_;
  const RankGroup& group_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
  std::vector<std::pair<std::int64_t, std::size_t>> heap_;  // (end time, cursor), min-heap
  std::size_t last_ = static_cast<std::size_t>(-1);
  std::string error_;
};

}  // namespace stallwatch::collector
