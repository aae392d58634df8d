// SPDX-License-Identifier: MIT
#pragma once

// Hand-built API data for the TUI's pure tests: rank rows, job summaries and
// a small two-job model, as the daemon would send them.

#include <optional>
#include <string>

#include "api_model.h"
#include "top_model.h"

namespace stallwatch::tui::test {

using Ratio = std::optional<double>;

// Metrics with the figures the tables show; the same for every window.
Metrics metrics(const std::string& window, Ratio idle, Ratio stall, Ratio overlap,
                Ratio steps_per_second, const std::string& verdict);

// A rank row with those metrics in windows 10s, 60s, 300s and total.
RankRow rank_row(std::int32_t rank, Ratio idle, Ratio stall, Ratio overlap, Ratio steps_per_second,
                 const std::string& verdict);

// Two jobs: "alpha" (active, 3 ranks: data-starved, well-overlapped,
// host-bound, with alpha's detail) and "beta" (finished, 1 rank, io-bound).
TopModel two_job_model();

}  // namespace stallwatch::tui::test
