// SPDX-License-Identifier: MIT
#pragma once

#include "dftracer_record.h"
#include "dftracer_scanner.h"

namespace stallwatch::collector::detail {

// Scans the "args" object at `s` (its opening brace, after optional blanks)
// into `r`: args.name, .value (and the counter value), .step, .epoch, .ppid,
// and .fname, .fhash, .ret, .size when dftracer_wants_ret(r.cat, r.name), so
// "name" and "cat" must be scanned first, as dftracer writes them. A "C"
// record (or one whose phase is not known yet) takes the first other integer
// argument as its counter value. False, `s` somewhere inside the object, on
// anything outside the scanner's subset (strings with escapes the reader
// keeps, numbers it cannot take); the caller then falls back to the full
// parser.
bool scan_dftracer_args(DftracerScanner& s, DftracerRecord& r);

}  // namespace stallwatch::collector::detail
