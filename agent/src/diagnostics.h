// SPDX-License-Identifier: MIT
#pragma once

namespace stallwatch::agent {

// Writes one line "stallwatch: <message>" to stderr, at most once per second
// process-wide (later problems in the same second are counted, not printed),
// and never when STALLWATCH_LOG=0. Only for real problems an operator should
// see (a socket that cannot be created, a malformed setting); never on the
// hot path and never for expected drops. Any thread; never throws.
void report_problem(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

// Writes one line "stallwatch: <message>" to stderr, unthrottled (but never
// when STALLWATCH_LOG=0), for a once-per-decision notice whose caller makes
// sure it is rare, e.g. the one line that says a GPU source fell back.
void report_notice(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace stallwatch::agent
