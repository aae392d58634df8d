// SPDX-License-Identifier: MIT
#pragma once

// The common in-memory form of one trace record, produced by every reader
// (dftracer .pfw, Kineto JSON) and consumed by the analyses and by replay.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace stallwatch::collector {

enum class TraceEventKind : std::uint8_t {
  kComplete = 0,    // a region [ts, ts + dur)
  kCounter = 1,     // a sample (value)
  kMark = 2,        // an instant, e.g. epoch.start from a dftracer CM record
  kAggregated = 3,  // a dftracer aggregated record (not a region; counted only)
  kMetadata = 4,    // host / file / process names (consumed by the reader)
};

inline constexpr std::int64_t kNoValue = std::numeric_limits<std::int64_t>::min();

// Strings are views into the reader's buffers: valid until the reader's next
// event. Times are the trace's own clock in nanoseconds (dftracer: Unix µs;
// Kineto: µs, relative to baseTimeNanoseconds when the file has one), converted
// exactly from the decimal text.
struct TraceEvent {
  TraceEventKind kind = TraceEventKind::kComplete;
  std::int64_t pid = 0;     // process as written in the file
  std::int64_t tid = 0;     // thread as written in the file
  std::int64_t os_pid = 0;  // the real process (dftracer fork quirk resolved)
  std::string_view cat;
  std::string_view name;
  std::int64_t ts_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t value = 0;  // mark / counter payload
  // The bytes a read or write call moved (a Complete in cat POSIX or STDIO:
  // dftracer's args.ret, times args.size for fread/fwrite; 0 for a failed
  // call); -1 when the record does not say.
  std::int64_t bytes = -1;
  // The path of the file a POSIX or STDIO call (a Complete) worked on:
  // dftracer's args.fname, or its args.fhash as an FH metadata record of the
  // same file names it ("<unknown file>" when none does); empty when the
  // record names no file.
  std::string_view file;
  std::int64_t step = kNoValue;   // args.step
  std::int64_t epoch = kNoValue;  // args.epoch
  std::int64_t stream = -1;       // Kineto args.stream; -1 = not a device row
  std::int64_t correlation = -1;  // Kineto args.correlation
  std::int64_t external_id = -1;  // Kineto args["External id"] (record-function id)
  // Kineto timestamps exactly as a JSON float parser sees them (µs), kept
  // for HTA's rounding rules; NaN when absent.
  double ts_us = std::nan("");
  double dur_us = std::nan("");
  bool ts_is_float = false;  // "ts" was written with a fraction or exponent
  std::uint64_t index = 0;   // position of the record in the file (0-based)
  std::uint64_t line = 0;    // 1-based line (0 when unknown)

  std::int64_t end_ns() const { return ts_ns + dur_ns; }
};

}  // namespace stallwatch::collector
