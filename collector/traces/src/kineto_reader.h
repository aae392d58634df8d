// SPDX-License-Identifier: MIT
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>

#include "input_file.h"
#include "json_object_scanner.h"
#include "kineto_element.h"
#include "traces/trace_reader.h"

namespace stallwatch::collector {

// Reads PyTorch-profiler (Kineto) traces (.json, .json.gz) as a stream: the
// top-level members are read as they come (distributedInfo.rank,
// baseTimeNanoseconds, host_name) and each traceEvents element is parsed on
// its own: by hand where it has the common shape (kineto_element.h), which
// also measures it for the scanner, else by simdjson. Timestamps are µs with
// optional ns fractions; they are converted to ns exactly, and also kept as
// the double a JSON float parser would produce (HTA's rounding works on
// those). GPU rows carry args.stream; args.correlation
// links them to their runtime launch.
//
// A document cut short (a killed profiler) ends the stream after the last
// complete event and is reported as one malformed record, not as a failure.
// Single-threaded.
class KinetoReader : public TraceReader {
 public:
  KinetoReader(std::unique_ptr<InputFile> file, TraceFileInfo info);
  // The scanner calls back into this object: it stays where it was made.
  KinetoReader(const KinetoReader&) = delete;
  KinetoReader& operator=(const KinetoReader&) = delete;

  bool next(TraceEvent& event) override;
  const TraceFileInfo& info() const override { return info_; }

  // Reads only the top-level members (skipping over traceEvents) to learn the
  // rank and clock base before streaming events. Returns "" or an error.
  static std::string scan_metadata(const std::string& path, TraceFileInfo& info);

 private:
  enum class Parsed : std::uint8_t { kEvent, kSkip, kMalformed };
  Parsed parse_element(TraceEvent& event, std::string& problem);
  void parse_member();
  // The scanner's element reader: the hand-written parser on the buffered
  // bytes, into *target_ and element_.
  static std::size_t read_element(std::string_view rest, void* self);

  std::unique_ptr<InputFile> file_;
  JsonObjectScanner scanner_;
  simdjson::ondemand::parser parser_;
  TraceEvent* target_ = nullptr;  // next()'s event while it runs
  KinetoElement element_;         // what read_element found beside it
  TraceFileInfo info_;
  std::uint64_t element_index_ = 0;
  bool done_ = false;
};

}  // namespace stallwatch::collector
