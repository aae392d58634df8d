// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "traces/trace_plan.h"

namespace stallwatch::collector {

// Streams every rank of a plan at once, merged by event end time, the order
// in which live agents would have emitted them. Memory: one reader per file.
// Single-threaded; the event is valid until the next call.
class JobStream {
 public:
  explicit JobStream(const TracePlan& plan);
  ~JobStream();

  std::string open();  // "" or the first unreadable file's error
  bool next(const TraceEvent*& event, const TraceFileInfo*& file, const RankGroup*& group);
  const std::string& error() const { return error_; }
  std::vector<ReadStats> stats() const;

 private:
  bool pull(std::size_t rank);

  const TracePlan& plan_;
  std::vector<std::unique_ptr<RankStream>> ranks_;
  std::vector<std::pair<const TraceEvent*, const TraceFileInfo*>> current_;
  std::vector<std::pair<std::int64_t, std::size_t>> heap_;  // (end time, rank), min-heap
  std::size_t last_ = static_cast<std::size_t>(-1);
  std::string error_;
};

}  // namespace stallwatch::collector
