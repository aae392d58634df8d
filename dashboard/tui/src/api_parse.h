// SPDX-License-Identifier: MIT
#pragma once

// Parsing of the daemon's JSON bodies (docs/api.md) into api_model.h structs.
// Pure functions; errors are values. Lenient about what they do not need:
// unknown fields are ignored and a missing or mistyped field takes its default
// (empty string, 0, or an empty optional), so a newer daemon still works. The
// top-level shape must be right (an object, with the arrays the TUI reads).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api_model.h"

namespace stallwatch::tui {

template <typename T>
struct ParseResult {
  std::optional<T> value;
  std::string error;  // what is wrong, when value is empty

  bool ok() const { return value.has_value(); }
};

// A message of /api/v1/stream. Both empty for a message type this client
// does not know (it is ignored, not an error).
struct StreamMessage {
  std::optional<StreamHello> hello;
  std::optional<StreamTick> tick;
};

ParseResult<JobsPage> parse_jobs_page(std::string_view json);
ParseResult<JobDetail> parse_job_detail(std::string_view json);
ParseResult<std::vector<Alert>> parse_alerts(std::string_view json);
ParseResult<TimelineView> parse_timeline(std::string_view json);
ParseResult<SeriesView> parse_series(std::string_view json);
ParseResult<DaemonStatus> parse_status(std::string_view json);
ParseResult<StreamMessage> parse_stream_message(std::string_view json);

// The `error` text of an API error body (`{"error": ..., "status": ...}`), or
// an empty string when the body is not one.
std::string api_error_text(std::string_view json);

}  // namespace stallwatch::tui
