#pragma once

namespace stallwatch::agent {

// Writes one line "stallwatch: <message>" to stderr, at most once per second
// process-wide (later problems in the same second are counted, not printed),
// and never when STALLWATCH_LOG=0. Only for real problems an operator should
// see (a socket that cannot be created, a malformed setting); never on the
// hot path and never for expected drops. Any thread; never throws.
void report_problem(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace stallwatch::agent
