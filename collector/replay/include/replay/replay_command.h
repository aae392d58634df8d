// SPDX-License-Identifier: MIT
#pragma once

#include <ostream>
#include <span>
#include <string_view>

namespace stallwatch::collector {

// `stallwatch replay FILE... [--speed N|max] [--to ENDPOINT] [--job NAME]`
// `args` are the words after "replay". Sends the traces as agent batches (one
// source per process, seq contiguous, sent_at advancing, heartbeats while
// waiting) to a live stallwatchd, timestamps shifted so the run appears to
// start now. --speed N plays N times real time (durations unchanged);
// --speed max sends as fast as the collector takes it, never dropping.
// Returns 0 when everything was handed to the collector, 1 when an input
// cannot be read or the collector does not take the data, 2 on a usage error.
int run_replay(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace stallwatch::collector
