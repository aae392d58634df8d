// SPDX-License-Identifier: MIT
#pragma once

// The plain-text report of `stallwatch status`: the daemon (version, uptime,
// endpoints), ingest volume and invalid frames by reason, the engine (ranks,
// sources, loss counters) and one verdict line per job. Pure.

#include <string>

#include "api_model.h"

namespace stallwatch::tui {

std::string format_status(const std::string& url, const DaemonStatus& status, const JobsPage& jobs);

}  // namespace stallwatch::tui
