// SPDX-License-Identifier: MIT
#pragma once

// Request paths of the API endpoints the TUI reads (docs/api.md), with the
// job id percent-encoded. Relative to the base URL's prefix. Pure.

#include <cstdint>
#include <string>
#include <string_view>

namespace stallwatch::tui {

inline constexpr std::string_view kJobsPath = "/api/v1/jobs";
inline constexpr std::string_view kStatusPath = "/api/v1/status";
inline constexpr std::string_view kAlertsPath = "/api/v1/alerts";

std::string job_path(std::string_view job);
std::string series_path(std::string_view job, std::string_view metric, std::string_view window,
                        int seconds);
std::string timeline_path(std::string_view job, std::int32_t rank, int seconds);

}  // namespace stallwatch::tui
