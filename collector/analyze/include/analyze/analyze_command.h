// SPDX-License-Identifier: MIT
#pragma once

#include <ostream>
#include <span>
#include <string_view>

namespace stallwatch::collector {

// `stallwatch analyze FILE... [--json] [--granularity 1s] [--mapping default|dlio]
//                    [--classes FILE.toml] [--horizon 60s] [--no-engine]`
// `args` are the words after "analyze". Prints DFAnalyzer's summary for
// dftracer traces, HTA's breakdowns for Kineto traces and stallwatch's own
// view of both. Malformed records are reported on `err` with file and line.
// Returns 0 on success, 1 when an input cannot be read, 2 on a usage error.
int run_analyze(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace stallwatch::collector
