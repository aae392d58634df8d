// SPDX-License-Identifier: MIT
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "traces/trace_event.h"

namespace stallwatch::collector {

// What one traceEvents element says beside the event's own fields.
struct KinetoElement {
  std::string_view ph;
  bool has_ts = false;
  bool has_dur = false;
};

// Parses one traceEvents element: `text` is one JSON value, and at least
// JsonObjectScanner::kPadding bytes after it are readable. Fills the fields a
// Kineto event has (name, cat, pid, tid, ts, dur, args.stream,
// args.correlation, args["External id"]) into `event`, which the caller has
// reset; strings point into `text` or into `parser`, valid until its next use.

// With simdjson's On Demand parser: any element. False, with `problem` set,
// for an element that is malformed.
bool parse_kineto_element(simdjson::ondemand::parser& parser, std::string_view text,
                          TraceEvent& event, KinetoElement& element, std::string& problem);

// By hand, for what nearly every element of a profiler's trace is: a JSON
// object in ASCII without escapes, its numbers without exponents, its integer
// fields written as integers of at most 18 digits, and nothing past it.
// Returns false for anything else (strictly checked, at any depth), with
// `event` and `element` then undefined: the caller parses the element with
// parse_kineto_element instead. What it returns equals what that one gives
// (kineto_element_fuzz checks it input by input). Why by hand: on the
// ResNet trace's elements it takes 177-184 ns per element where On Demand
// takes 278-291 (bench_kineto_element), and it finds where an element ends
// as it reads it (the _prefix form), which spares the scanner that pass.
bool parse_kineto_element_fast(std::string_view text, TraceEvent& event, KinetoElement& element);

// The same for the element at the front of `text`, whatever follows it (the
// rest of the reader's buffer): `length` is set to the element's size. The
// scanner then need not look for the element's end itself.
bool parse_kineto_element_fast_prefix(std::string_view text, TraceEvent& event,
                                      KinetoElement& element, std::size_t& length);

}  // namespace stallwatch::collector
