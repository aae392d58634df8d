// SPDX-License-Identifier: MIT
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/trace_event.h"

namespace stallwatch::collector {

// dftracer's "ph" values (integer dialect; the Chrome letters map onto them).
enum DftracerPhase : std::int64_t {
  kPhaseUnknown = 0,
  kPhaseComplete = 1,    // "X"
  kPhaseCounter = 2,     // "C"
  kPhaseAggregated = 3,  // "A"
  kPhaseMetadata = 4,    // "M"
  kPhaseInstant = 5,     // "i"/"I"/"R" (Chrome dialect only)
};

// Whether args.ret (and args.size) of a record named `name` in `cat` are kept.
inline bool dftracer_wants_ret(std::string_view cat, std::string_view name) {
  return name == "fork" || name == "vfork" || cat == "POSIX" || cat == "STDIO";
}

// The fields of one dftracer JSON line that the reader uses. Views point into
// the line (fast path) or the JSON parser (full path); valid until the next line.
struct DftracerRecord {
  std::string_view name;
  std::string_view cat;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::int64_t ts_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t phase = kPhaseUnknown;
  bool has_pid = false;
  bool has_ts = false;
  bool has_dur = false;
  bool has_phase = false;
  std::string_view meta_name;   // args.name
  std::string_view meta_value;  // args.value, as text
  bool has_meta_value = false;
  std::int64_t counter_value = 0;  // args.value, or the first other numeric arg
  bool has_counter_value = false;
  std::int64_t step = kNoValue;   // args.step
  std::int64_t epoch = kNoValue;  // args.epoch
  // args.ret of a fork or vfork (the child's pid, 0 in the child) or of a
  // POSIX/STDIO call (bytes moved; items for fread/fwrite), when "cat" comes
  // before "args" on the line, as dftracer writes it.
  std::int64_t ret = -1;
  std::int64_t size = -1;  // args.size of a STDIO call (bytes per item)
  bool has_ret = false;
  // The file of a POSIX/STDIO call: args.fname (its path, older dftracer)
  // or args.fhash (named by an FH metadata record), as text.
  std::string_view fname;
  std::string_view fhash;
  std::int64_t start_ppid = -1;  // args.ppid

  // Back to the defaults above, field by field: assigning a fresh record
  // compiles to a `rep stos`, slow at this size and rate (once per line).
  void clear() {
    name = {};
    cat = {};
    pid = tid = ts_ns = dur_ns = 0;
    phase = kPhaseUnknown;
    has_pid = has_ts = has_dur = has_phase = false;
    meta_name = meta_value = {};
    has_meta_value = false;
    counter_value = 0;
    has_counter_value = false;
    step = epoch = kNoValue;
    ret = size = start_ppid = -1;
    has_ret = false;
    fname = fhash = {};
  }
};

// Readable bytes scan_dftracer_record() needs after the line (it reads whole
// words; their contents do not matter).
inline constexpr std::size_t kScanPadding = 16;

// Fast path for the compact lines dftracer writes: no escapes in the strings
// the reader keeps, integer pid/tid. Returns false, having decided nothing,
// for anything else; the caller then uses parse_dftracer_record(). `line`
// must be followed by kScanPadding readable bytes (dftracer_scan.cc).
bool scan_dftracer_record(std::string_view line, DftracerRecord& out);

// Full JSON parse of one line (any valid JSON object). False with `problem`
// set when the line is not valid JSON or a field has the wrong type.
bool parse_dftracer_record(simdjson::ondemand::parser& parser, std::string_view line,
                           std::size_t padding, DftracerRecord& out, std::string& problem);

std::int64_t dftracer_phase_from_letter(std::string_view ph);

}  // namespace stallwatch::collector
